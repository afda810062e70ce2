/**
 * A generated credential corpus, written from the providers' published token shapes without looking at the
 * detector's rules: every value comes from a fixed-seed generator, so the corpus is fake and reproducible.
 *
 * - `generatedCredentials()`: one sample per credential format (each in the kind of text a model might try to
 *   save), then the same formats again under each evasion (zero-width and bidi characters, fullwidth and other
 *   compatibility letters, Cyrillic look-alikes, a token split across lines, shell continuation lines, base64
 *   wrapping and percent-encoding), each evasion applied to a share of the formats.
 * - `generatedClean()`: technical texts that look close to credentials and are not.
 */

// ---------------------------------------------------------------------------------------------------------------
// A seeded generator (mulberry32).

export interface Rng {
  (): number
}

export const makeRng = (seed: number): Rng => {
  let s = seed | 0
  return () => {
    s = (s + 0x6d2b79f5) | 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const L = "abcdefghijklmnopqrstuvwxyz"
const U = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const D = "0123456789"
const AN = L + U + D
const LD = L + D
const UD = U + D
const H = "0123456789abcdef"
const HU = "0123456789ABCDEF"
const B64 = AN + "+/"
const B64U = AN + "-_"
const B32 = U + "234567"
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const BECH32U = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"

const int = (g: Rng, lo: number, hi: number): number => lo + Math.floor(g() * (hi - lo + 1))
const pick = <A>(g: Rng, xs: ReadonlyArray<A>): A => xs[Math.floor(g() * xs.length)]!
const rs = (g: Rng, set: string, n: number): string => {
  let out = ""
  for (let i = 0; i < n; i++) out += set[Math.floor(g() * set.length)]
  return out
}
/** A random string with at least one upper, one lower and one digit, as real high-entropy tokens nearly always have. */
const mixed = (g: Rng, set: string, n: number): string => {
  for (;;) {
    const s = rs(g, set, n)
    if (n < 6 || (/[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s)) || !/[a-z]/.test(set) || !/[A-Z]/.test(set)) return s
  }
}
const uuid = (g: Rng): string =>
  `${rs(g, H, 8)}-${rs(g, H, 4)}-4${rs(g, H, 3)}-${pick(g, ["8", "9", "a", "b"])}${rs(g, H, 3)}-${rs(g, H, 12)}`
const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64")
const b64url = (s: string): string => Buffer.from(s, "utf8").toString("base64url")
const b64Lines = (g: Rng, lines: number, width = 64): string =>
  Array.from({ length: lines }, () => rs(g, B64, width)).join("\n")
const word = (g: Rng): string =>
  pick(g, ["staging", "prod", "billing", "deploy", "ci", "mirror", "reports", "ingest", "analytics", "backup"])
const host = (g: Rng): string =>
  pick(g, ["db.internal", "10.0.3.17", "pg-main.acme.io", "cache.acme.dev", "mq.prod.acme.net", "mysql-01.corp"])
const user = (g: Rng): string => pick(g, ["app", "deploy", "svc_reports", "admin", "ci-bot", "jenkins", "etl"])
/** A human-chosen but strong password. */
const password = (g: Rng): string => {
  const specials = "!#%&*+-=?@^_~"
  const n = int(g, 10, 18)
  let s = mixed(g, AN, n - 2)
  s += rs(g, specials, 1) + rs(g, D, 1)
  return s
}

// ---------------------------------------------------------------------------------------------------------------
// Contexts a credential appears in.

/** A token in a sentence or a line without a secret-like name near it. */
const NEUTRAL: ReadonlyArray<(t: string) => string> = [
  (t) => `The CI job for the release reads ${t} from the runner environment.`,
  (t) => `value: ${t}`,
  (t) => `- staging: \`${t}\``,
  (t) => `const client = makeClient("${t}")`,
  (t) => `Use ${t} when calling the API from the cron box.`,
  (t) => `| ci | ${t} | rotated 2024-05 |`,
  (t) => `curl https://api.example.com/v1/items?x=1 -d '${t}'`,
  (t) => `note from the incident: the leaked value was ${t}, revoked since`
]

type Style = "env" | "export" | "yaml" | "json" | "toml" | "ini" | "xml" | "cli" | "props" | "md" | "code" | "prose"

const renderNamed = (style: Style, name: string, t: string): string => {
  switch (style) {
    case "env":
      return `${name}=${t}`
    case "export":
      return `export ${name}="${t}"`
    case "yaml":
      return `config:\n  ${name}: ${t}\n  region: eu-west-1`
    case "json":
      return `{\n  "${name}": "${t}",\n  "timeout": 30\n}`
    case "toml":
      return `[service]\n${name} = "${t}"\nretries = 3`
    case "ini":
      return `[default]\n${name} = ${t}`
    case "xml":
      return `<config>\n  <${name}>${t}</${name}>\n</config>`
    case "cli":
      return `./deploy.sh --${name.toLowerCase().replace(/_/g, "-")} ${t} --region eu-west-1`
    case "props":
      return `app.${name.toLowerCase().replace(/_/g, ".")}=${t}`
    case "md":
      return `- **${name.replace(/_/g, " ").toLowerCase()}**: \`${t}\``
    case "code":
      return `const ${name.toLowerCase().replace(/_(.)/g, (_m, c: string) => c.toUpperCase())} = '${t}'`
    case "prose":
      return `For the ${name.replace(/_/g, " ").toLowerCase()} use ${t} until it is rotated.`
  }
}
const STYLES: ReadonlyArray<Style> = ["env", "export", "yaml", "json", "toml", "ini", "xml", "cli", "props", "md", "code"]

export interface Piece {
  /** The secret part, the one evasions act on. */
  readonly token: string
  /** The text around it. */
  readonly wrap: (token: string) => string
}

const neutral = (g: Rng, token: string): Piece => ({ token, wrap: pick(g, NEUTRAL) })
const named = (g: Rng, names: ReadonlyArray<string>, token: string, styles: ReadonlyArray<Style> = STYLES): Piece => {
  const name = pick(g, names)
  const style = pick(g, styles)
  return { token, wrap: (t) => renderNamed(style, name, t) }
}
/** A prefixed token: in a neutral context half the time, under a name the other half. */
const either = (g: Rng, names: ReadonlyArray<string>, token: string): Piece =>
  g() < 0.5 ? neutral(g, token) : named(g, names, token)
const literal = (token: string, wrap: (t: string) => string = (t) => t): Piece => ({ token, wrap })

// ---------------------------------------------------------------------------------------------------------------
// Credential formats.

export interface Format {
  readonly id: string
  readonly make: (g: Rng) => Piece
}

const F = (id: string, make: (g: Rng) => Piece): Format => ({ id, make })

const pem = (g: Rng, label: string, lines: number, dashes = 5, headers = ""): string => {
  const d = "-".repeat(dashes)
  return `${d}BEGIN ${label}${d}\n${headers}${b64Lines(g, lines)}\n${rs(g, B64, 20)}=\n${d}END ${label}${d}`
}
const jwtSigned = (g: Rng, payload: Record<string, unknown>): string =>
  `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify(payload))}.${rs(g, B64U, 43)}`

export const FORMATS: ReadonlyArray<Format> = [
  // --- cloud platforms
  F("aws-access-key-id", (g) => either(g, ["AWS_ACCESS_KEY_ID"], `AKIA${rs(g, B32, 16)}`)),
  F("aws-temporary-key-id", (g) => either(g, ["aws_access_key_id"], `ASIA${rs(g, B32, 16)}`)),
  F("aws-secret-access-key", (g) =>
    named(g, ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey"], mixed(g, B64, 40))),
  F("aws-credentials-file", (g) =>
    literal(mixed(g, B64, 40), (t) => `[default]\naws_access_key_id = AKIA${rs(g, B32, 16)}\naws_secret_access_key = ${t}`)),
  F("aws-session-token", (g) =>
    named(g, ["aws_session_token", "AWS_SESSION_TOKEN"], `IQoJb3JpZ2luX2Vj${mixed(g, B64, 200)}`, ["env", "ini", "export"])),
  F("gcp-service-account", (g) =>
    literal(
      `-----BEGIN PRIVATE KEY-----\\n${rs(g, B64, 64)}\\n${rs(g, B64, 64)}\\n-----END PRIVATE KEY-----\\n`,
      (t) =>
        `{\n  "type": "service_account",\n  "project_id": "acme-${word(g)}",\n  "private_key_id": "${rs(g, H, 40)}",\n  "private_key": "${t}",\n  "client_email": "ci@acme.iam.gserviceaccount.com"\n}`
    )),
  F("google-api-key", (g) => either(g, ["GOOGLE_API_KEY", "maps_key"], `AIza${rs(g, B64U, 35)}`)),
  F("google-oauth-client-secret", (g) => either(g, ["GOOGLE_CLIENT_SECRET"], `GOCSPX-${rs(g, B64U, 28)}`)),
  F("google-oauth-refresh-token", (g) =>
    either(g, ["refresh_token", "GOOGLE_REFRESH_TOKEN"], `1//0${rs(g, AN, 1)}${rs(g, B64U, 90)}`)),
  F("google-oauth-access-token", (g) => either(g, ["access_token"], `ya29.${rs(g, B64U, 120)}`)),
  F("azure-storage-connection-string", (g) =>
    literal(
      `${rs(g, B64, 86)}==`,
      (t) => `DefaultEndpointsProtocol=https;AccountName=acme${word(g)};AccountKey=${t};EndpointSuffix=core.windows.net`
    )),
  F("azure-sas-url", (g) =>
    literal(
      encodeURIComponent(`${rs(g, B64, 43)}=`),
      (t) => `https://acme.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&sig=${t}`
    )),
  F("azure-ad-client-secret", (g) =>
    either(g, ["AZURE_CLIENT_SECRET", "client_secret"], `${rs(g, B64U, 3)}${rs(g, D, 1)}Q~${rs(g, AN + "_~.-", 34)}`)),
  F("azure-devops-pat", (g) => named(g, ["AZURE_DEVOPS_PAT", "ADO_TOKEN", "azure_devops_token"], rs(g, LD, 52))),
  F("azure-cosmos-key", (g) => literal(`${rs(g, B64, 86)}==`, (t) => `AccountEndpoint=https://acme.documents.azure.com:443/;AccountKey=${t};`)),
  F("alibaba-access-key-id", (g) => either(g, ["ALIBABA_CLOUD_ACCESS_KEY_ID"], `LTAI${mixed(g, AN, 20)}`)),
  F("alibaba-secret", (g) => named(g, ["ALIBABA_CLOUD_ACCESS_KEY_SECRET", "aliyun_secret"], mixed(g, AN, 30))),
  F("tencent-secret-id", (g) => either(g, ["TENCENTCLOUD_SECRET_ID"], `AKID${mixed(g, AN, 32)}`)),
  F("ibm-cloud-api-key", (g) => named(g, ["IBMCLOUD_API_KEY", "ibm_api_key"], mixed(g, B64U, 44))),
  F("digitalocean-pat", (g) => either(g, ["DIGITALOCEAN_TOKEN", "DO_TOKEN"], `dop_v1_${rs(g, H, 64)}`)),
  F("digitalocean-oauth", (g) => either(g, ["do_oauth"], `doo_v1_${rs(g, H, 64)}`)),
  F("digitalocean-refresh", (g) => either(g, ["do_refresh"], `dor_v1_${rs(g, H, 64)}`)),
  F("heroku-api-key-new", (g) => either(g, ["HEROKU_API_KEY"], `HRKU-AA${rs(g, B64U, 58)}`)),
  F("heroku-api-key-uuid", (g) => named(g, ["HEROKU_API_KEY", "heroku_token"], uuid(g))),
  F("linode-token", (g) => named(g, ["LINODE_TOKEN", "LINODE_CLI_TOKEN"], rs(g, H, 64))),
  F("scaleway-secret-key", (g) => named(g, ["SCW_SECRET_KEY"], uuid(g))),
  F("vultr-api-key", (g) => named(g, ["VULTR_API_KEY"], rs(g, UD, 36))),
  F("hetzner-token", (g) => named(g, ["HCLOUD_TOKEN"], mixed(g, AN, 64))),
  F("cloudflare-api-token", (g) => named(g, ["CLOUDFLARE_API_TOKEN", "CF_API_TOKEN"], mixed(g, B64U, 40))),
  F("cloudflare-global-key", (g) => named(g, ["CLOUDFLARE_API_KEY", "CF_API_KEY"], rs(g, H, 37))),
  F("cloudflare-origin-ca-key", (g) => either(g, ["CF_ORIGIN_CA_KEY"], `v1.0-${rs(g, H, 24)}-${rs(g, H, 146)}`)),
  F("fastly-api-token", (g) => named(g, ["FASTLY_API_TOKEN", "fastly_key"], mixed(g, B64U, 32))),
  F("vercel-token", (g) => named(g, ["VERCEL_TOKEN"], mixed(g, AN, 24))),
  F("netlify-pat", (g) => either(g, ["NETLIFY_AUTH_TOKEN"], `nfp_${mixed(g, AN, 36)}`)),
  F("flyio-token", (g) => either(g, ["FLY_API_TOKEN"], `FlyV1 fm2_${rs(g, B64, 300)}`)),
  F("flyio-org-token", (g) => either(g, ["FLY_ACCESS_TOKEN"], `fo1_${rs(g, B64U, 43)}`)),
  F("render-api-key", (g) => either(g, ["RENDER_API_KEY"], `rnd_${mixed(g, AN, 32)}`)),
  F("supabase-pat", (g) => either(g, ["SUPABASE_ACCESS_TOKEN"], `sbp_${rs(g, H, 40)}`)),
  F("supabase-secret-key", (g) => either(g, ["SUPABASE_SECRET_KEY"], `sb_secret_${rs(g, B64U, 31)}`)),
  F("supabase-service-role-jwt", (g) =>
    named(g, ["SUPABASE_SERVICE_ROLE_KEY"], jwtSigned(g, { iss: "supabase", ref: rs(g, L, 20), role: "service_role", iat: 1700000000 }))),
  F("planetscale-token", (g) => either(g, ["PLANETSCALE_SERVICE_TOKEN"], `pscale_tkn_${rs(g, B64U, 43)}`)),
  F("planetscale-password", (g) => either(g, ["DATABASE_PASSWORD"], `pscale_pw_${rs(g, B64U, 43)}`)),
  F("databricks-token", (g) => either(g, ["DATABRICKS_TOKEN"], `dapi${rs(g, H, 32)}`)),
  F("snowflake-password", (g) =>
    literal(password(g), (t) => `snowsql -a acme-xy12345 -u ${user(g)} --password '${t}' -d ANALYTICS`)),
  F("vault-service-token", (g) => either(g, ["VAULT_TOKEN"], `hvs.${mixed(g, B64U, 90)}`)),
  F("vault-batch-token", (g) => either(g, ["VAULT_TOKEN"], `hvb.${mixed(g, B64U, 120)}`)),
  F("vault-legacy-token", (g) => named(g, ["VAULT_TOKEN", "vault_token"], `s.${mixed(g, AN, 24)}`)),
  F("terraform-cloud-token", (g) => either(g, ["TF_TOKEN_app_terraform_io", "token"], `${mixed(g, AN, 14)}.atlasv1.${mixed(g, AN, 67)}`)),
  F("pulumi-token", (g) => either(g, ["PULUMI_ACCESS_TOKEN"], `pul-${rs(g, H, 40)}`)),
  F("doppler-personal", (g) => either(g, ["DOPPLER_TOKEN"], `dp.pt.${mixed(g, AN, 43)}`)),
  F("doppler-service", (g) => either(g, ["DOPPLER_TOKEN"], `dp.st.${word(g)}.${mixed(g, AN, 40)}`)),
  F("doppler-service-account", (g) => either(g, ["DOPPLER_TOKEN"], `dp.sa.${mixed(g, AN, 43)}`)),
  F("onepassword-service-account", (g) =>
    either(g, ["OP_SERVICE_ACCOUNT_TOKEN"], `ops_${b64url(JSON.stringify({ signInAddress: "acme.1password.com", userAuth: { method: "SRPg-4096", alg: "PBES2g-HS256", iterations: 650000, salt: rs(g, B64U, 22) }, email: `${rs(g, L, 12)}@1passwordserviceaccounts.com`, srpX: rs(g, H, 64), muk: { alg: "A256GCM", ext: true, k: rs(g, B64U, 43), key_ops: ["encrypt", "decrypt"], kty: "oct", kid: "mp" }, secretKey: `A3-${rs(g, UD, 6)}-${rs(g, UD, 6)}-${rs(g, UD, 5)}-${rs(g, UD, 5)}-${rs(g, UD, 5)}-${rs(g, UD, 5)}`, throttleSecret: { seed: rs(g, H, 64), uuid: rs(g, UD, 26) }, deviceUuid: rs(g, LD, 26) }))}`)),
  F("infracost-key", (g) => either(g, ["INFRACOST_API_KEY"], `ico-${mixed(g, AN, 32)}`)),
  F("openshift-token", (g) => either(g, ["OC_TOKEN"], `sha256~${rs(g, B64U, 43)}`)),
  F("rancher-token", (g) => named(g, ["RANCHER_TOKEN", "CATTLE_TOKEN"], `token-${rs(g, LD, 5)}:${rs(g, LD, 54)}`)),
  F("portainer-token", (g) => either(g, ["PORTAINER_API_KEY"], `ptr_${rs(g, B64, 43)}=`)),
  F("kubernetes-sa-token", (g) =>
    named(g, ["token", "K8S_TOKEN"], `eyJhbGciOiJSUzI1NiIsImtpZCI6I${rs(g, B64U, 40)}.${b64url(JSON.stringify({ iss: "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", sub: "system:serviceaccount:ci:deployer" }))}.${rs(g, B64U, 342)}`, ["yaml", "env"])),
  F("tailscale-auth-key", (g) => either(g, ["TS_AUTHKEY"], `tskey-auth-${rs(g, AN, 12)}CNTRL-${mixed(g, AN, 32)}`)),
  F("tailscale-api-key", (g) => either(g, ["TS_API_KEY"], `tskey-api-${rs(g, AN, 12)}CNTRL-${mixed(g, AN, 32)}`)),
  F("ngrok-authtoken", (g) => named(g, ["NGROK_AUTHTOKEN", "authtoken"], `2${mixed(g, AN, 26)}_${mixed(g, AN, 21)}`)),
  F("backblaze-app-key", (g) => named(g, ["B2_APPLICATION_KEY"], `K005${mixed(g, AN + "+/", 27)}`)),
  F("minio-secret", (g) => named(g, ["MINIO_SECRET_KEY", "MINIO_ROOT_PASSWORD"], mixed(g, AN, 40))),
  F("aws-bedrock-key", (g) => either(g, ["AWS_BEARER_TOKEN_BEDROCK"], `ABSK${rs(g, B64, 130)}=`)),
  F("scaleway-access-key", (g) => either(g, ["SCW_ACCESS_KEY"], `SCW${rs(g, UD, 17)}`)),
  F("yandex-api-key", (g) => either(g, ["YC_API_KEY"], `AQVN${mixed(g, B64U, 36)}`)),
  F("defined-networking-key", (g) => either(g, ["DN_API_KEY"], `dnkey-${rs(g, UD, 26)}-${rs(g, UD, 52)}`)),
  F("scalingo-token", (g) => either(g, ["SCALINGO_API_TOKEN"], `tk-us-${mixed(g, B64U, 48)}`)),
  F("adafruit-io-key", (g) => either(g, ["ADAFRUIT_IO_KEY"], `aio_${mixed(g, AN, 28)}`)),
  F("maxmind-license-key", (g) => either(g, ["MAXMIND_LICENSE_KEY"], `${mixed(g, AN, 6)}_${mixed(g, AN, 29)}_mmk`)),
  F("sidekiq-enterprise", (g) => literal(`${rs(g, H, 8)}:${rs(g, H, 8)}`, (t) => `bundle config --local gems.contribsys.com ${t}\nBUNDLE_ENTERPRISE__CONTRIBSYS__COM=${t}`)),
  F("wasabi-secret", (g) => named(g, ["WASABI_SECRET_KEY"], mixed(g, B64, 40))),
  // --- source hosting, CI, registries
  F("github-pat", (g) => either(g, ["GITHUB_TOKEN", "GH_TOKEN"], `ghp_${mixed(g, AN, 36)}`)),
  F("github-fine-grained", (g) => either(g, ["GITHUB_TOKEN"], `github_pat_11${rs(g, UD, 20)}_${mixed(g, AN, 59)}`)),
  F("github-oauth", (g) => either(g, ["GITHUB_OAUTH_TOKEN"], `gho_${mixed(g, AN, 36)}`)),
  F("github-app-installation", (g) => either(g, ["INSTALLATION_TOKEN"], `ghs_${mixed(g, AN, 36)}`)),
  F("github-user-to-server", (g) => either(g, ["GH_USER_TOKEN"], `ghu_${mixed(g, AN, 36)}`)),
  F("github-refresh", (g) => either(g, ["refresh_token"], `ghr_${mixed(g, AN, 76)}`)),
  F("github-token-in-url", (g) =>
    literal(`ghp_${mixed(g, AN, 36)}`, (t) => `git remote set-url origin https://${t}@github.com/acme/${word(g)}.git`)),
  F("github-app-token-in-url", (g) =>
    literal(`ghs_${mixed(g, AN, 36)}`, (t) => `git clone https://x-access-token:${t}@github.com/acme/infra.git`)),
  F("gitlab-pat", (g) => either(g, ["GITLAB_TOKEN"], `glpat-${mixed(g, B64U, 20)}`)),
  F("gitlab-runner", (g) => either(g, ["RUNNER_TOKEN"], `glrt-${mixed(g, B64U, 20)}`)),
  F("gitlab-runner-registration", (g) => either(g, ["REGISTRATION_TOKEN"], `GR1348941${mixed(g, B64U, 20)}`)),
  F("gitlab-pipeline-trigger", (g) => either(g, ["TRIGGER_TOKEN"], `glptt-${rs(g, H, 40)}`)),
  F("gitlab-deploy-token", (g) => either(g, ["DEPLOY_TOKEN"], `gldt-${mixed(g, B64U, 20)}`)),
  F("gitlab-feed-token", (g) => either(g, ["FEED_TOKEN"], `glft-${mixed(g, B64U, 20)}`)),
  F("gitlab-oauth-secret", (g) => either(g, ["GITLAB_APP_SECRET"], `gloas-${rs(g, H, 64)}`)),
  F("bitbucket-app-password", (g) => either(g, ["BITBUCKET_APP_PASSWORD"], `ATBB${mixed(g, AN, 32)}${rs(g, HU, 8)}`)),
  F("atlassian-api-token", (g) =>
    either(g, ["JIRA_API_TOKEN", "ATLASSIAN_TOKEN"], `ATATT3xFfGF0${mixed(g, B64U, 170)}=${rs(g, HU, 8)}`)),
  F("atlassian-legacy-token", (g) => named(g, ["JIRA_API_TOKEN", "confluence_token"], mixed(g, AN, 24))),
  F("gitea-token", (g) => named(g, ["GITEA_TOKEN"], rs(g, H, 40))),
  F("npm-token", (g) => either(g, ["NPM_TOKEN"], `npm_${mixed(g, AN, 36)}`)),
  F("npmrc-auth-token", (g) => literal(`npm_${mixed(g, AN, 36)}`, (t) => `//registry.npmjs.org/:_authToken=${t}`)),
  F("npmrc-legacy-auth", (g) =>
    literal(b64(`${user(g)}:${password(g)}`), (t) => `registry=https://npm.acme.io/\n_auth=${t}\nalways-auth=true`)),
  F("pypi-token", (g) => either(g, ["TWINE_PASSWORD", "PYPI_TOKEN"], `pypi-AgEIcHlwaS5vcmc${mixed(g, B64U, 120)}`)),
  F("pypirc", (g) =>
    literal(`pypi-AgENdGVzdC5weXBpLm9yZw${mixed(g, B64U, 100)}`, (t) => `[testpypi]\nusername = __token__\npassword = ${t}`)),
  F("rubygems-key", (g) => either(g, ["GEM_HOST_API_KEY"], `rubygems_${rs(g, H, 48)}`)),
  F("nuget-key", (g) => either(g, ["NUGET_API_KEY"], `oy2${rs(g, LD, 43)}`)),
  F("docker-hub-pat", (g) => either(g, ["DOCKERHUB_TOKEN"], `dckr_pat_${mixed(g, B64U, 27)}`)),
  F("docker-org-token", (g) => either(g, ["DOCKER_TOKEN"], `dckr_oat_${mixed(g, B64U, 32)}`)),
  F("jfrog-api-key", (g) => either(g, ["ARTIFACTORY_API_KEY"], `AKCp${mixed(g, AN, 69)}`)),
  F("jfrog-reference-token", (g) => named(g, ["JFROG_ACCESS_TOKEN"], `cmVmdGtu${mixed(g, AN, 56)}`)),
  F("clojars-token", (g) => either(g, ["CLOJARS_PASSWORD"], `CLOJARS_${rs(g, H, 60)}`)),
  F("packagist-token", (g) => either(g, ["COMPOSER_AUTH"], `packagist_uat_${mixed(g, AN, 68)}`)),
  F("sonarqube-user-token", (g) => either(g, ["SONAR_TOKEN"], `squ_${rs(g, H, 40)}`)),
  F("sonarqube-project-token", (g) => either(g, ["SONAR_TOKEN"], `sqp_${rs(g, H, 40)}`)),
  F("circleci-pat", (g) => either(g, ["CIRCLECI_TOKEN"], `CCIPAT_${mixed(g, AN, 22)}_${rs(g, H, 40)}`)),
  F("buildkite-token", (g) => either(g, ["BUILDKITE_API_TOKEN"], `bkua_${rs(g, H, 40)}`)),
  F("travis-token", (g) => named(g, ["TRAVIS_TOKEN"], mixed(g, B64U, 22))),
  F("jenkins-api-token", (g) => named(g, ["JENKINS_API_TOKEN", "jenkins_token"], `11${rs(g, H, 32)}`)),
  F("octopus-api-key", (g) => either(g, ["OCTOPUS_API_KEY"], `API-${rs(g, UD, 26)}`)),
  F("harness-pat", (g) => either(g, ["HARNESS_TOKEN"], `pat.${mixed(g, B64U, 22)}.${rs(g, H, 24)}.${mixed(g, AN, 20)}`)),
  F("codecov-token", (g) => named(g, ["CODECOV_TOKEN"], uuid(g))),
  F("snyk-token", (g) => named(g, ["SNYK_TOKEN"], uuid(g))),
  F("sourcegraph-token", (g) => either(g, ["SRC_ACCESS_TOKEN"], `sgp_${rs(g, H, 16)}_${rs(g, H, 40)}`)),
  F("postman-api-key", (g) => either(g, ["POSTMAN_API_KEY"], `PMAK-${rs(g, H, 24)}-${rs(g, H, 34)}`)),
  F("readme-api-key", (g) => either(g, ["README_API_KEY"], `rdme_${rs(g, H, 70)}`)),
  F("prefect-api-key", (g) => either(g, ["PREFECT_API_KEY"], `pnu_${mixed(g, AN, 36)}`)),
  F("dbt-cloud-token", (g) => either(g, ["DBT_CLOUD_API_TOKEN"], `dbtc_${mixed(g, B64U, 40)}`)),
  // --- AI providers
  F("openai-project-key", (g) => either(g, ["OPENAI_API_KEY"], `sk-proj-${mixed(g, B64U, 74)}T3BlbkFJ${mixed(g, B64U, 74)}`)),
  F("openai-legacy-key", (g) => either(g, ["OPENAI_API_KEY"], `sk-${mixed(g, AN, 20)}T3BlbkFJ${mixed(g, AN, 20)}`)),
  F("openai-service-account", (g) => either(g, ["OPENAI_API_KEY"], `sk-svcacct-${mixed(g, B64U, 74)}T3BlbkFJ${mixed(g, B64U, 74)}`)),
  F("anthropic-key", (g) => either(g, ["ANTHROPIC_API_KEY"], `sk-ant-api03-${mixed(g, B64U, 93)}AA`)),
  F("anthropic-admin-key", (g) => either(g, ["ANTHROPIC_ADMIN_KEY"], `sk-ant-admin01-${mixed(g, B64U, 93)}AA`)),
  F("groq-key", (g) => either(g, ["GROQ_API_KEY"], `gsk_${mixed(g, AN, 52)}`)),
  F("replicate-token", (g) => either(g, ["REPLICATE_API_TOKEN"], `r8_${mixed(g, AN, 37)}`)),
  F("perplexity-key", (g) => either(g, ["PERPLEXITY_API_KEY"], `pplx-${mixed(g, AN, 48)}`)),
  F("xai-key", (g) => either(g, ["XAI_API_KEY"], `xai-${mixed(g, AN, 80)}`)),
  F("openrouter-key", (g) => either(g, ["OPENROUTER_API_KEY"], `sk-or-v1-${rs(g, H, 64)}`)),
  F("huggingface-token", (g) => either(g, ["HF_TOKEN"], `hf_${mixed(g, AN, 34)}`)),
  F("cohere-key", (g) => named(g, ["COHERE_API_KEY", "CO_API_KEY"], mixed(g, AN, 40))),
  F("mistral-key", (g) => named(g, ["MISTRAL_API_KEY"], mixed(g, AN, 32))),
  F("deepseek-key", (g) => named(g, ["DEEPSEEK_API_KEY"], `sk-${rs(g, H, 32)}`)),
  F("langsmith-key", (g) => either(g, ["LANGSMITH_API_KEY"], `lsv2_pt_${rs(g, H, 32)}_${rs(g, H, 10)}`)),
  F("pinecone-key", (g) => either(g, ["PINECONE_API_KEY"], `pcsk_${mixed(g, AN, 6)}_${mixed(g, AN, 63)}`)),
  F("wandb-key", (g) => named(g, ["WANDB_API_KEY"], rs(g, H, 40))),
  F("assemblyai-key", (g) => named(g, ["ASSEMBLYAI_API_KEY"], rs(g, H, 32))),
  F("elevenlabs-key", (g) => named(g, ["ELEVENLABS_API_KEY", "xi-api-key"], `sk_${rs(g, H, 48)}`)),
  F("fireworks-key", (g) => either(g, ["FIREWORKS_API_KEY"], `fw_${mixed(g, AN, 24)}`)),
  F("azure-devops-pat-v2", (g) => either(g, ["AZURE_DEVOPS_EXT_PAT"], `${mixed(g, AN, 52)}JQQJ99${rs(g, AN, 1)}${pick(g, ["A", "B", "C"])}${rs(g, AN, 5)}AZDO${rs(g, AN, 4)}`)),
  F("nvidia-key", (g) => either(g, ["NVIDIA_API_KEY"], `nvapi-${mixed(g, B64U, 64)}`)),
  F("cerebras-key", (g) => either(g, ["CEREBRAS_API_KEY"], `csk-${rs(g, LD, 48)}`)),
  F("tavily-key", (g) => either(g, ["TAVILY_API_KEY"], `tvly-dev-${mixed(g, AN, 32)}`)),
  F("firecrawl-key", (g) => either(g, ["FIRECRAWL_API_KEY"], `fc-${rs(g, H, 32)}`)),
  F("browserbase-key", (g) => either(g, ["BROWSERBASE_API_KEY"], `bb_live_${mixed(g, B64U, 27)}`)),
  F("e2b-key", (g) => either(g, ["E2B_API_KEY"], `e2b_${rs(g, H, 40)}`)),
  F("modal-token", (g) => literal(`as-${mixed(g, AN, 22)}`, (t) => `modal token set --token-id ak-${mixed(g, AN, 22)} --token-secret ${t}`)),
  F("resend-key", (g) => either(g, ["RESEND_API_KEY"], `re_${mixed(g, AN, 8)}_${mixed(g, AN, 24)}`)),
  F("neon-key", (g) => either(g, ["NEON_API_KEY"], `napi_${rs(g, LD, 64)}`)),
  F("honeycomb-ingest-key", (g) => either(g, ["HONEYCOMB_INGEST_KEY"], `hcaik_${rs(g, LD, 58)}`)),
  F("axiom-token", (g) => either(g, ["AXIOM_TOKEN"], `xaat-${uuid(g)}`)),
  F("cloudflare-tunnel-token", (g) => literal(b64(JSON.stringify({ a: rs(g, H, 32), t: uuid(g), s: b64(rs(g, AN, 32)) })), (t) => `cloudflared tunnel run --token ${t}`)),
  F("wix-api-key", (g) => either(g, ["WIX_API_KEY"], `IST.${b64url(JSON.stringify({ kid: rs(g, AN, 8), alg: "RS256" }))}.${b64url(JSON.stringify({ data: rs(g, AN, 60), iat: 1700000000 }))}.${rs(g, B64U, 342)}`)),
  F("vercel-blob-token", (g) => either(g, ["BLOB_READ_WRITE_TOKEN"], `vercel_blob_rw_${mixed(g, AN, 16)}_${mixed(g, AN, 30)}`)),
  F("posthog-personal-key", (g) => either(g, ["POSTHOG_PERSONAL_API_KEY"], `phx_${mixed(g, AN, 43)}`)),
  F("statsig-server-secret", (g) => either(g, ["STATSIG_SERVER_SECRET"], `secret-${mixed(g, AN, 43)}`)),
  F("flagsmith-server-key", (g) => either(g, ["FLAGSMITH_ENVIRONMENT_KEY"], `ser.${mixed(g, AN, 22)}`)),
  F("ghost-admin-key", (g) => either(g, ["GHOST_ADMIN_API_KEY"], `${rs(g, H, 24)}:${rs(g, H, 64)}`)),
  F("telnyx-key", (g) => either(g, ["TELNYX_API_KEY"], `KEY${rs(g, HU, 32)}_${mixed(g, AN, 22)}`)),
  // --- payments and commerce
  F("stripe-live-secret", (g) => either(g, ["STRIPE_SECRET_KEY"], `sk_live_51${mixed(g, AN, 97)}`)),
  F("stripe-test-secret", (g) => either(g, ["STRIPE_SECRET_KEY"], `sk_test_51${mixed(g, AN, 97)}`)),
  F("stripe-restricted", (g) => either(g, ["STRIPE_KEY"], `rk_live_51${mixed(g, AN, 97)}`)),
  F("stripe-webhook-secret", (g) => either(g, ["STRIPE_WEBHOOK_SECRET"], `whsec_${mixed(g, AN, 32)}`)),
  F("square-access-token", (g) => either(g, ["SQUARE_ACCESS_TOKEN"], `EAAA${mixed(g, B64U, 60)}`)),
  F("square-legacy-token", (g) => either(g, ["SQUARE_TOKEN"], `sq0atp-${mixed(g, B64U, 22)}`)),
  F("square-oauth-secret", (g) => either(g, ["SQUARE_SECRET"], `sq0csp-${mixed(g, B64U, 43)}`)),
  F("braintree-token", (g) => either(g, ["BRAINTREE_TOKEN"], `access_token$production$${rs(g, LD, 16)}$${rs(g, H, 32)}`)),
  F("paypal-client-secret", (g) => named(g, ["PAYPAL_CLIENT_SECRET"], `E${mixed(g, B64U, 79)}`)),
  F("shopify-admin-token", (g) => either(g, ["SHOPIFY_ACCESS_TOKEN"], `shpat_${rs(g, H, 32)}`)),
  F("shopify-shared-secret", (g) => either(g, ["SHOPIFY_API_SECRET"], `shpss_${rs(g, H, 32)}`)),
  F("shopify-custom-app", (g) => either(g, ["SHOPIFY_TOKEN"], `shpca_${rs(g, H, 32)}`)),
  F("shopify-private-app", (g) => either(g, ["SHOPIFY_PASSWORD"], `shppa_${rs(g, H, 32)}`)),
  F("flutterwave-secret", (g) => either(g, ["FLW_SECRET_KEY"], `FLWSECK-${rs(g, H, 32)}-X`)),
  F("razorpay-secret", (g) => named(g, ["RAZORPAY_KEY_SECRET"], mixed(g, AN, 24))),
  F("plaid-access-token", (g) => either(g, ["PLAID_ACCESS_TOKEN"], `access-production-${uuid(g)}`)),
  F("plaid-secret", (g) => named(g, ["PLAID_SECRET"], rs(g, H, 30))),
  F("adyen-api-key", (g) => named(g, ["ADYEN_API_KEY"], `AQE${mixed(g, B64U, 20)}...${mixed(g, B64U, 60)}`.replace("...", "+"))),
  F("gocardless-token", (g) => either(g, ["GOCARDLESS_ACCESS_TOKEN"], `live_${mixed(g, B64U, 40)}`)),
  F("coinbase-api-secret", (g) => named(g, ["COINBASE_API_SECRET"], mixed(g, AN, 32))),
  F("duffel-token", (g) => either(g, ["DUFFEL_ACCESS_TOKEN"], `duffel_live_${mixed(g, B64U, 43)}`)),
  F("shippo-token", (g) => either(g, ["SHIPPO_API_TOKEN"], `shippo_live_${rs(g, H, 40)}`)),
  F("easypost-key", (g) => either(g, ["EASYPOST_API_KEY"], `EZAK${rs(g, LD, 54)}`)),
  // --- messaging and collaboration
  F("slack-bot-token", (g) => either(g, ["SLACK_BOT_TOKEN"], `xoxb-${rs(g, D, 12)}-${rs(g, D, 13)}-${mixed(g, AN, 24)}`)),
  F("slack-user-token", (g) => either(g, ["SLACK_TOKEN"], `xoxp-${rs(g, D, 12)}-${rs(g, D, 12)}-${rs(g, D, 13)}-${rs(g, H, 32)}`)),
  F("slack-app-token", (g) => either(g, ["SLACK_APP_TOKEN"], `xapp-1-A${rs(g, UD, 10)}-${rs(g, D, 13)}-${rs(g, H, 64)}`)),
  F("slack-config-token", (g) => either(g, ["SLACK_CONFIG_TOKEN"], `xoxe.xoxp-1-${mixed(g, AN, 160)}`)),
  F("slack-webhook", (g) =>
    literal(`https://hooks.slack.com/services/T${rs(g, UD, 10)}/B${rs(g, UD, 10)}/${mixed(g, AN, 24)}`, pick(g, NEUTRAL))),
  F("discord-bot-token", (g) =>
    either(g, ["DISCORD_TOKEN"], `${pick(g, ["M", "N", "O"])}${mixed(g, AN, 25)}.${mixed(g, B64U, 6)}.${mixed(g, B64U, 38)}`)),
  F("discord-webhook", (g) =>
    literal(`https://discord.com/api/webhooks/${rs(g, D, 19)}/${mixed(g, B64U, 68)}`, pick(g, NEUTRAL))),
  F("telegram-bot-token", (g) => either(g, ["TELEGRAM_BOT_TOKEN"], `${int(g, 1, 9)}${rs(g, D, 9)}:AA${mixed(g, B64U, 33)}`)),
  F("teams-webhook", (g) =>
    literal(
      `https://acme.webhook.office.com/webhookb2/${uuid(g)}@${uuid(g)}/IncomingWebhook/${rs(g, H, 32)}/${uuid(g)}/V2${mixed(g, B64U, 43)}`,
      pick(g, NEUTRAL)
    )),
  F("google-chat-webhook", (g) =>
    literal(
      `https://chat.googleapis.com/v1/spaces/AAAA${rs(g, B64U, 7)}/messages?key=AIzaSy${rs(g, B64U, 33)}&token=${rs(g, B64U, 43)}%3D`,
      pick(g, NEUTRAL)
    )),
  F("mattermost-webhook", (g) => literal(`https://chat.acme.io/hooks/${rs(g, LD, 26)}`, (t) => `MATTERMOST_WEBHOOK_URL=${t}`)),
  F("zapier-webhook", (g) => literal(`https://hooks.zapier.com/hooks/catch/${rs(g, D, 7)}/${rs(g, LD, 6)}/`, (t) => `ZAPIER_HOOK=${t}`)),
  F("twilio-api-key-secret", (g) => named(g, ["TWILIO_API_SECRET", "TWILIO_AUTH_TOKEN"], rs(g, H, 32))),
  F("sendgrid-key", (g) => either(g, ["SENDGRID_API_KEY"], `SG.${mixed(g, B64U, 22)}.${mixed(g, B64U, 43)}`)),
  F("mailgun-key", (g) => either(g, ["MAILGUN_API_KEY"], `key-${rs(g, H, 32)}`)),
  F("mailgun-new-key", (g) => named(g, ["MAILGUN_API_KEY"], `${rs(g, H, 32)}-${rs(g, H, 8)}-${rs(g, H, 8)}`)),
  F("mailchimp-key", (g) => either(g, ["MAILCHIMP_API_KEY"], `${rs(g, H, 32)}-us${int(g, 1, 21)}`)),
  F("mandrill-key", (g) => named(g, ["MANDRILL_API_KEY"], mixed(g, B64U, 22))),
  F("postmark-token", (g) => named(g, ["POSTMARK_SERVER_TOKEN", "POSTMARK_API_TOKEN"], uuid(g))),
  F("brevo-key", (g) => either(g, ["BREVO_API_KEY"], `xkeysib-${rs(g, H, 64)}-${mixed(g, AN, 16)}`)),
  F("brevo-smtp-key", (g) => either(g, ["SMTP_PASSWORD"], `xsmtpsib-${rs(g, H, 64)}-${mixed(g, AN, 16)}`)),
  F("messagebird-key", (g) => named(g, ["MESSAGEBIRD_API_KEY"], mixed(g, AN, 25))),
  F("vonage-secret", (g) => named(g, ["VONAGE_API_SECRET", "NEXMO_API_SECRET"], mixed(g, AN, 16))),
  F("pusher-secret", (g) => named(g, ["PUSHER_APP_SECRET"], rs(g, H, 20))),
  F("ably-key", (g) => either(g, ["ABLY_API_KEY"], `${mixed(g, B64U, 6)}.${mixed(g, B64U, 6)}:${mixed(g, B64U, 43)}`)),
  F("linear-api-key", (g) => either(g, ["LINEAR_API_KEY"], `lin_api_${mixed(g, AN, 40)}`)),
  F("linear-oauth", (g) => either(g, ["LINEAR_TOKEN"], `lin_oauth_${rs(g, H, 64)}`)),
  F("notion-token-legacy", (g) => either(g, ["NOTION_TOKEN"], `secret_${mixed(g, AN, 43)}`)),
  F("notion-token", (g) => either(g, ["NOTION_API_KEY"], `ntn_${rs(g, D, 11)}${mixed(g, AN, 35)}`)),
  F("airtable-pat", (g) => either(g, ["AIRTABLE_TOKEN"], `pat${mixed(g, AN, 14)}.${rs(g, H, 64)}`)),
  F("asana-pat", (g) => either(g, ["ASANA_TOKEN"], `2/${rs(g, D, 16)}/${rs(g, D, 16)}:${rs(g, H, 32)}`)),
  F("clickup-token", (g) => either(g, ["CLICKUP_API_TOKEN"], `pk_${rs(g, D, 8)}_${rs(g, UD, 32)}`)),
  F("figma-pat", (g) => either(g, ["FIGMA_TOKEN"], `figd_${mixed(g, B64U, 40)}`)),
  F("contentful-pat", (g) => either(g, ["CONTENTFUL_MANAGEMENT_TOKEN"], `CFPAT-${mixed(g, B64U, 43)}`)),
  F("typeform-token", (g) => either(g, ["TYPEFORM_TOKEN"], `tfp_${mixed(g, AN, 44)}_${mixed(g, AN, 14)}`)),
  F("dropbox-token", (g) => either(g, ["DROPBOX_ACCESS_TOKEN"], `sl.${mixed(g, B64U, 135)}`)),
  F("hubspot-pat", (g) => either(g, ["HUBSPOT_ACCESS_TOKEN"], `pat-na1-${uuid(g)}`)),
  F("intercom-token", (g) => named(g, ["INTERCOM_ACCESS_TOKEN"], `dG9rOj${mixed(g, B64, 54)}=`)),
  F("zendesk-token", (g) => named(g, ["ZENDESK_API_TOKEN"], mixed(g, AN, 40))),
  F("trello-token", (g) => named(g, ["TRELLO_TOKEN"], `ATTA${rs(g, H, 64)}${rs(g, HU, 8)}`)),
  F("frameio-token", (g) => either(g, ["FRAMEIO_TOKEN"], `fio-u-${mixed(g, B64U, 64)}`)),
  F("adobe-client-secret", (g) => either(g, ["ADOBE_CLIENT_SECRET"], `p8e-${mixed(g, AN, 32)}`)),
  F("facebook-access-token", (g) => either(g, ["FB_ACCESS_TOKEN"], `EAAB${mixed(g, AN, 180)}`)),
  F("facebook-app-secret", (g) => named(g, ["FACEBOOK_APP_SECRET"], rs(g, H, 32))),
  F("twitter-bearer", (g) => either(g, ["TWITTER_BEARER_TOKEN"], `AAAAAAAAAAAAAAAAAAAAA${mixed(g, AN, 20)}%3D${mixed(g, AN, 50)}`)),
  F("twitch-secret", (g) => named(g, ["TWITCH_CLIENT_SECRET"], rs(g, LD, 30))),
  F("okta-token", (g) => named(g, ["OKTA_API_TOKEN", "OKTA_CLIENT_TOKEN"], `00${mixed(g, B64U, 40)}`)),
  F("auth0-client-secret", (g) => named(g, ["AUTH0_CLIENT_SECRET"], mixed(g, B64U, 64))),
  F("firebase-fcm-server-key", (g) => either(g, ["FCM_SERVER_KEY"], `AAAA${mixed(g, B64U, 7)}:APA91b${mixed(g, B64U, 134)}`)),
  F("salesforce-access-token", (g) => named(g, ["SF_ACCESS_TOKEN", "SALESFORCE_TOKEN"], `00D${rs(g, AN, 12)}!${mixed(g, AN + ".", 96)}`)),
  // --- observability
  F("sentry-dsn", (g) => literal(`https://${rs(g, H, 32)}@o${rs(g, D, 6)}.ingest.sentry.io/${rs(g, D, 7)}`, pick(g, [(t: string) => `SENTRY_DSN=${t}`, (t: string) => `Sentry.init({ dsn: "${t}" })`, (t: string) => `dsn: ${t}`]))),
  F("sentry-org-token", (g) =>
    either(g, ["SENTRY_AUTH_TOKEN"], `sntrys_${b64(JSON.stringify({ iat: 1700000000.1, url: "https://sentry.io", region_url: "https://us.sentry.io", org: "acme" }))}_${mixed(g, B64, 43)}`)),
  F("sentry-user-token", (g) => either(g, ["SENTRY_AUTH_TOKEN"], `sntryu_${rs(g, H, 64)}`)),
  F("datadog-api-key", (g) => named(g, ["DD_API_KEY", "DATADOG_API_KEY"], rs(g, H, 32))),
  F("datadog-app-key", (g) => named(g, ["DD_APP_KEY", "DATADOG_APPLICATION_KEY"], rs(g, H, 40))),
  F("newrelic-user-key", (g) => either(g, ["NEW_RELIC_API_KEY"], `NRAK-${rs(g, UD, 27)}`)),
  F("newrelic-insert-key", (g) => either(g, ["NEW_RELIC_INSERT_KEY"], `NRII-${mixed(g, B64U, 32)}`)),
  F("newrelic-license-key", (g) => named(g, ["NEW_RELIC_LICENSE_KEY"], `${rs(g, H, 36)}NRAL`)),
  F("newrelic-browser-key", (g) => either(g, ["NEW_RELIC_BROWSER_KEY"], `NRJS-${rs(g, H, 19)}`)),
  F("grafana-cloud-token", (g) =>
    either(g, ["GRAFANA_CLOUD_TOKEN"], `glc_${b64(JSON.stringify({ o: rs(g, D, 6), n: `stack-${rs(g, D, 6)}-hm-read`, k: mixed(g, AN, 24), m: { r: "prod-us-east-0" } }))}`)),
  F("grafana-service-account", (g) => either(g, ["GRAFANA_TOKEN"], `glsa_${mixed(g, AN, 32)}_${rs(g, H, 8)}`)),
  F("honeycomb-key", (g) => named(g, ["HONEYCOMB_API_KEY"], mixed(g, AN, 22))),
  F("pagerduty-key", (g) => named(g, ["PAGERDUTY_TOKEN", "PD_API_KEY"], `u+${mixed(g, B64U, 18)}`)),
  F("dynatrace-token", (g) => either(g, ["DT_API_TOKEN"], `dt0c01.${rs(g, UD, 24)}.${rs(g, UD, 64)}`)),
  F("splunk-hec-token", (g) => named(g, ["SPLUNK_HEC_TOKEN"], uuid(g).toUpperCase())),
  F("elastic-api-key", (g) => named(g, ["ELASTIC_API_KEY", "ES_API_KEY"], `${b64(`${mixed(g, B64U, 20)}:${mixed(g, B64U, 22)}`)}`)),
  F("logzio-token", (g) => named(g, ["LOGZIO_TOKEN"], rs(g, L, 32))),
  F("sumologic-key", (g) => named(g, ["SUMO_ACCESS_KEY"], mixed(g, AN, 64))),
  F("algolia-admin-key", (g) => named(g, ["ALGOLIA_ADMIN_KEY", "ALGOLIA_API_KEY"], rs(g, H, 32))),
  F("mapbox-secret-token", (g) => either(g, ["MAPBOX_SECRET_TOKEN"], `sk.eyJ1IjoiYWNtZS${mixed(g, B64U, 40)}.${mixed(g, B64U, 22)}`)),
  F("segment-write-key", (g) => named(g, ["SEGMENT_WRITE_KEY"], mixed(g, AN, 32))),
  F("mixpanel-secret", (g) => named(g, ["MIXPANEL_API_SECRET"], rs(g, H, 32))),
  F("launchdarkly-key", (g) => either(g, ["LAUNCHDARKLY_SDK_KEY"], `sdk-${uuid(g)}`)),
  F("launchdarkly-api", (g) => either(g, ["LD_API_KEY"], `api-${uuid(g)}`)),
  // --- crypto and web3
  F("age-secret-key", (g) => either(g, ["SOPS_AGE_KEY"], `AGE-SECRET-KEY-1${rs(g, BECH32U, 58)}`)),
  F("ethereum-private-key", (g) => named(g, ["PRIVATE_KEY", "DEPLOYER_PRIVATE_KEY", "wallet_private_key"], `0x${rs(g, H, 64)}`)),
  F("bitcoin-wif", (g) => named(g, ["wif", "btc_private_key"], `5${pick(g, ["H", "J", "K"])}${rs(g, B58, 49)}`)),
  F("infura-key", (g) => named(g, ["INFURA_API_KEY", "INFURA_PROJECT_SECRET"], rs(g, H, 32))),
  F("alchemy-key", (g) => named(g, ["ALCHEMY_API_KEY"], mixed(g, B64U, 32))),
  F("etherscan-key", (g) => named(g, ["ETHERSCAN_API_KEY"], rs(g, UD, 34))),
  // --- generic credentials in tool shapes
  F("postgres-url", (g) => literal(password(g), (t) => `DATABASE_URL=postgres://${user(g)}:${t}@${host(g)}:5432/${word(g)}`)),
  F("mysql-url", (g) => literal(password(g), (t) => `mysql://${user(g)}:${t}@${host(g)}/${word(g)}`)),
  F("mongodb-srv-url", (g) => literal(password(g), (t) => `mongodb+srv://${user(g)}:${t}@cluster0.${rs(g, LD, 5)}.mongodb.net/?retryWrites=true`)),
  F("redis-empty-user-url", (g) => literal(password(g), (t) => `REDIS_URL=redis://:${t}@${host(g)}:6379/0`)),
  F("amqp-url", (g) => literal(password(g), (t) => `amqps://${user(g)}:${t}@${host(g)}/vhost`)),
  F("jdbc-url", (g) =>
    literal(password(g), (t) => `spring.datasource.url=jdbc:postgresql://${host(g)}:5432/${word(g)}?user=${user(g)}&password=${t}`)),
  F("sqlserver-connection-string", (g) =>
    literal(password(g), (t) => `Server=tcp:${host(g)},1433;Database=${word(g)};User ID=${user(g)};Password=${t};Encrypt=True;`)),
  F("ftp-url", (g) => literal(password(g), (t) => `lftp ftp://${user(g)}:${t}@ftp.acme.io/uploads`)),
  F("https-basic-url", (g) => literal(password(g), (t) => `pip install --index-url https://${user(g)}:${t}@pypi.acme.io/simple pkg`)),
  F("cloudinary-url", (g) => literal(mixed(g, B64U, 27), (t) => `CLOUDINARY_URL=cloudinary://${rs(g, D, 15)}:${t}@acme`)),
  F("netrc-line", (g) => literal(password(g), (t) => `machine api.${word(g)}.acme.io login ${user(g)} password ${t}`)),
  F("netrc-multiline", (g) => literal(mixed(g, AN, 40), (t) => `machine github.com\n  login acme-bot\n  password ${t}`)),
  F("pgpass-line", (g) => literal(password(g), (t) => `${host(g)}:5432:${word(g)}:${user(g)}:${t}`)),
  F("docker-config-auth", (g) =>
    literal(b64(`${user(g)}:${password(g)}`), (t) => `{\n  "auths": {\n    "registry.acme.io": {\n      "auth": "${t}"\n    }\n  }\n}`)),
  F("docker-identitytoken", (g) =>
    literal(mixed(g, B64U, 64), (t) => `{"auths": {"acme.azurecr.io": {"auth": "", "identitytoken": "${t}"}}}`)),
  F("kubeconfig-client-key", (g) =>
    literal(b64(pem(g, "RSA PRIVATE KEY", 6)), (t) => `users:\n- name: admin\n  user:\n    client-certificate-data: ${b64("cert").slice(0, 6)}\n    client-key-data: ${t}`)),
  F("kubeconfig-token", (g) => literal(mixed(g, AN, 48), (t) => `users:\n- name: ci\n  user:\n    token: ${t}`)),
  F("k8s-secret-manifest", (g) =>
    literal(b64(password(g)), (t) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: ${t}`)),
  F("curl-user", (g) => literal(`${user(g)}:${password(g)}`, (t) => `curl -u ${t} https://ci.acme.io/api/json`)),
  F("curl-user-quoted", (g) => literal(`${user(g)}:${password(g)}`, (t) => `curl -s --user '${t}' https://nexus.acme.io/service/rest`)),
  F("header-x-api-key", (g) => literal(mixed(g, AN, 32), (t) => `curl -H 'X-Api-Key: ${t}' https://api.acme.io/v2/jobs`)),
  F("header-authorization-bearer", (g) => literal(mixed(g, B64U, 40), (t) => `curl -H "Authorization: Bearer ${t}" https://api.acme.io`)),
  F("header-authorization-basic", (g) => literal(b64(`${user(g)}:${password(g)}`), (t) => `Authorization: Basic ${t}`)),
  F("header-ssws", (g) => literal(`00${mixed(g, B64U, 40)}`, (t) => `Authorization: SSWS ${t}`)),
  F("header-apikey", (g) => literal(b64(`${mixed(g, B64U, 20)}:${mixed(g, B64U, 22)}`), (t) => `Authorization: ApiKey ${t}`)),
  F("header-token", (g) => literal(rs(g, H, 40), (t) => `-H "Authorization: token ${t}"`)),
  F("header-private-token", (g) => literal(mixed(g, B64U, 20), (t) => `curl --header "PRIVATE-TOKEN: ${t}" https://gitlab.acme.io/api/v4/projects`)),
  F("header-custom-auth", (g) => literal(mixed(g, AN, 36), (t) => `X-Auth-Token: ${t}`)),
  F("mysql-p-flag", (g) => literal(password(g), (t) => `mysql -h ${host(g)} -u ${user(g)} -p${t} ${word(g)}`)),
  F("docker-login-p", (g) => literal(password(g), (t) => `docker login registry.acme.io -u ${user(g)} -p ${t}`)),
  F("sshpass", (g) => literal(password(g), (t) => `sshpass -p '${t}' ssh deploy@${host(g)}`)),
  F("pgpassword-env", (g) => literal(password(g), (t) => `PGPASSWORD=${t} psql -h ${host(g)} -U ${user(g)}`)),
  F("dbpassword-no-separator", (g) => named(g, ["DBPASSWORD", "DBPASS", "ADMINPASSWORD", "SMTPPASS"], password(g), ["env", "export", "ini"])),
  F("all-caps-secret", (g) => named(g, ["APP_SECRET", "JWT_SECRET", "SESSION_SECRET", "SECRET_KEY_BASE"], mixed(g, AN, 48))),
  F("password-generic", (g) => named(g, ["password", "db_password", "adminPassword", "passwd", "pwd"], password(g))),
  F("token-generic", (g) => named(g, ["api_token", "accessToken", "auth_token", "apiKey", "api-key", "secret"], mixed(g, AN, 32))),
  F("xml-password", (g) => literal(password(g), (t) => `<server>\n  <id>releases</id>\n  <username>${user(g)}</username>\n  <password>${t}</password>\n</server>`)),
  F("xml-attribute", (g) => literal(password(g), (t) => `<add key="SmtpPassword" value="${t}" />`)),
  F("yaml-block-scalar", (g) => literal(mixed(g, AN, 40), (t) => `credentials:\n  api_token: |\n    ${t}\n  region: eu`)),
  F("yaml-folded", (g) => literal(password(g), (t) => `db:\n  password: >-\n    ${t}`)),
  F("password-in-prose", (g) =>
    literal(password(g), pick(g, [
      (t: string) => `The admin password for the staging console is ${t} (ask Dana before changing it).`,
      (t: string) => `Log in to the router as admin with password ${t}.`,
      (t: string) => `Jenkins: user ci, pass ${t}`,
      (t: string) => `the wifi password is "${t}"`
    ]))),
  F("token-in-prose", (g) => literal(mixed(g, AN, 40), (t) => `My API token is ${t} so the script can call the billing service.`)),
  F("ansible-become-pass", (g) => literal(password(g), (t) => `ansible-playbook site.yml -e ansible_become_pass=${t}`)),
  F("htaccess-basic-in-nginx", (g) => literal(b64(`${user(g)}:${password(g)}`), (t) => `proxy_set_header Authorization "Basic ${t}";`)),
  F("android-keystore", (g) => literal(password(g), (t) => `signingConfigs {\n  release {\n    storePassword "${t}"\n    keyAlias "upload"\n  }\n}`)),
  F("wireguard-private-key", (g) => literal(`${rs(g, B64, 43)}=`, (t) => `[Interface]\nPrivateKey = ${t}\nAddress = 10.8.0.2/24`)),
  F("jwt-signed", (g) => either(g, ["id_token", "session"], jwtSigned(g, { sub: rs(g, D, 8), name: "Ada", admin: true, iat: 1700000000 }))),
  F("jwt-rs256", (g) =>
    neutral(g, `${b64url(JSON.stringify({ alg: "RS256", kid: rs(g, H, 8) }))}.${b64url(JSON.stringify({ sub: "svc", aud: "api", exp: 1900000000 }))}.${rs(g, B64U, 342)}`)),
  F("otpauth-secret", (g) => literal(rs(g, B32, 32), (t) => `otpauth://totp/Acme:ada@acme.io?secret=${t}&issuer=Acme`)),
  F("django-secret-key", (g) => named(g, ["SECRET_KEY", "DJANGO_SECRET_KEY"], `django-insecure-${rs(g, L + D + "!@#$%^&*(-_=+)", 50)}`, ["env", "code"])),
  F("rails-master-key", (g) => literal(rs(g, H, 32), (t) => `echo ${t} > config/master.key`)),
  F("hmac-signing-secret", (g) => named(g, ["WEBHOOK_SIGNING_SECRET", "hmac_key", "signing_key"], rs(g, H, 64))),
  F("encryption-key-base64", (g) => named(g, ["ENCRYPTION_KEY", "encryption_key", "aes_key"], `${rs(g, B64, 43)}=`)),
  // --- key material
  F("rsa-private-key", (g) => literal(pem(g, "RSA PRIVATE KEY", 12))),
  F("ec-private-key", (g) => literal(pem(g, "EC PRIVATE KEY", 3))),
  F("dsa-private-key", (g) => literal(pem(g, "DSA PRIVATE KEY", 10))),
  F("pkcs8-private-key", (g) => literal(pem(g, "PRIVATE KEY", 16))),
  F("pkcs8-encrypted", (g) => literal(pem(g, "ENCRYPTED PRIVATE KEY", 16))),
  F("openssh-private-key", (g) => literal(`-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n${b64Lines(g, 5, 70)}\n-----END OPENSSH PRIVATE KEY-----`)),
  F("pgp-private-key", (g) => literal(`-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBG${rs(g, B64, 58)}\n${b64Lines(g, 8)}\n=${rs(g, B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----`)),
  F("rsa-encrypted-legacy", (g) =>
    literal(pem(g, "RSA PRIVATE KEY", 12, 5, `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${rs(g, HU, 32)}\n\n`))),
  F("pem-four-dashes", (g) => literal(pem(g, "RSA PRIVATE KEY", 10, 4))),
  F("pem-in-json-string", (g) =>
    literal(`-----BEGIN EC PRIVATE KEY-----\\n${rs(g, B64, 64)}\\n${rs(g, B64, 52)}\\n-----END EC PRIVATE KEY-----`, (t) => `{"key": "${t}"}`)),
  F("ssh2-private-key", (g) =>
    literal(`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-20240101"\n${b64Lines(g, 10, 70)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`)),
  F("putty-key", (g) =>
    literal(`PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240101\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI${rs(g, B64, 40)}\n${rs(g, B64, 20)}\nPrivate-Lines: 1\nAAAAI${rs(g, B64, 43)}\nPrivate-MAC: ${rs(g, H, 64)}`)),
  F("openvpn-static-key", (g) =>
    literal(`-----BEGIN OpenVPN Static key V1-----\n${Array.from({ length: 16 }, () => rs(g, H, 32)).join("\n")}\n-----END OpenVPN Static key V1-----`)),
  F("dotnet-rsa-xml", (g) =>
    literal(`<RSAKeyValue><Modulus>${rs(g, B64, 172)}=</Modulus><Exponent>AQAB</Exponent><P>${rs(g, B64, 86)}==</P><Q>${rs(g, B64, 86)}==</Q><DP>${rs(g, B64, 86)}==</DP><DQ>${rs(g, B64, 86)}==</DQ><InverseQ>${rs(g, B64, 86)}==</InverseQ><D>${rs(g, B64, 172)}=</D></RSAKeyValue>`)),
  F("key-body-without-armour-pkcs8", (g) =>
    literal(`MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ${rs(g, B64, 14)}\n${b64Lines(g, 8)}`, (t) => `private key (armour stripped):\n${t}`)),
  F("key-body-without-armour-rsa", (g) => literal(`MIIEpAIBAAKCAQEA${rs(g, B64, 48)}\n${b64Lines(g, 8)}`)),
  F("key-body-without-armour-ec", (g) => literal(`MHcCAQEEI${rs(g, B64, 55)}\n${rs(g, B64, 56)}`, (t) => `ec key:\n${t}`)),
  F("openssh-body-without-armour", (g) => literal(`b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n${b64Lines(g, 4, 70)}`)),
  F("jwk-private", (g) =>
    literal(rs(g, B64U, 43), (t) => `{"kty":"EC","crv":"P-256","x":"${rs(g, B64U, 43)}","y":"${rs(g, B64U, 43)}","d":"${t}"}`)),
  F("gpg-armoured-in-yaml", (g) =>
    literal(pem(g, "PGP PRIVATE KEY BLOCK", 6).replace(/\n/g, "\n    "), (t) => `signing:\n  key: |\n    ${t}`))
]

// ---------------------------------------------------------------------------------------------------------------
// Evasions.

export type Evasion =
  | "none"
  | "zero-width"
  | "bidi"
  | "fullwidth"
  | "nfkc-compat"
  | "cyrillic"
  | "split-lines"
  | "continuation"
  | "base64"
  | "percent"

export const EVASIONS: ReadonlyArray<Exclude<Evasion, "none">> = [
  "zero-width",
  "bidi",
  "fullwidth",
  "nfkc-compat",
  "cyrillic",
  "split-lines",
  "continuation",
  "base64",
  "percent"
]

const ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
const BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f"]
const CYRILLIC: Record<string, string> = {
  a: "\u0430", c: "\u0441", e: "\u0435", o: "\u043e", p: "\u0440", x: "\u0445", y: "\u0443", i: "\u0456", s: "\u0455", j: "\u0458",
  A: "\u0410", B: "\u0412", C: "\u0421", E: "\u0415", H: "\u041d", K: "\u041a", M: "\u041c", O: "\u041e", P: "\u0420", T: "\u0422", X: "\u0425"
}

const insertAt = (g: Rng, s: string, chars: ReadonlyArray<string>, count: number): string => {
  let out = s
  for (let i = 0; i < count; i++) {
    const at = int(g, 1, Math.max(1, out.length - 1))
    out = out.slice(0, at) + pick(g, chars) + out.slice(at)
  }
  return out
}
/** The first line of a token: evasions that act inside a token act there (a PEM's body lines stay as they are). */
const onFirstLine = (s: string, f: (line: string) => string): string => {
  const nl = s.indexOf("\n")
  return nl < 0 ? f(s) : f(s.slice(0, nl)) + s.slice(nl)
}
const fullwidth = (c: string): string => (c >= "!" && c <= "~" ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c)
/** Mathematical bold letters and digits, and a few other compatibility forms NFKC folds back. */
const compat = (c: string): string => {
  if (c >= "A" && c <= "Z") return String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)
  if (c >= "a" && c <= "z") return String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
  if (c >= "0" && c <= "9") return String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
  return c
}
const percentAll = (s: string): string => Array.from(Buffer.from(s, "utf8"), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")

export const applyEvasion = (g: Rng, e: Evasion, piece: Piece): string => {
  const { token, wrap } = piece
  switch (e) {
    case "none":
      return wrap(token)
    case "zero-width":
      return wrap(onFirstLine(token, (l) => insertAt(g, l, ZERO_WIDTH, int(g, 1, 3))))
    case "bidi":
      return wrap(onFirstLine(token, (l) => insertAt(g, l, BIDI, int(g, 1, 2))))
    case "fullwidth": {
      const n = int(g, 3, 8)
      return wrap(onFirstLine(token, (l) => Array.from(l.slice(0, n), fullwidth).join("") + l.slice(n)))
    }
    case "nfkc-compat": {
      const n = int(g, 3, 8)
      return wrap(onFirstLine(token, (l) => Array.from(l.slice(0, n), compat).join("") + l.slice(n)))
    }
    case "cyrillic": {
      const swapped = onFirstLine(token, (l) => {
        let done = 0
        return Array.from(l, (c, i) => (i < 12 && done < 3 && CYRILLIC[c] !== undefined ? (done++, CYRILLIC[c]!) : c)).join("")
      })
      return wrap(swapped === token ? onFirstLine(token, (l) => Array.from(l.slice(0, 4), fullwidth).join("") + l.slice(4)) : swapped)
    }
    case "split-lines":
      return wrap(onFirstLine(token, (l) => {
        const at = int(g, Math.min(8, l.length - 2), Math.max(8, l.length - 4))
        return `${l.slice(0, at)}\n${l.slice(at)}`
      }))
    case "continuation":
      return wrap(onFirstLine(token, (l) => {
        const at = int(g, Math.min(8, l.length - 2), Math.max(8, l.length - 4))
        return `${l.slice(0, at)}\\\n${l.slice(at)}`
      }))
    case "base64": {
      const encoded = b64(wrap(token))
      return pick(g, [
        `echo ${encoded} | base64 -d >> ~/.config/acme/env`,
        `stored blob: ${encoded}`,
        `config_b64: "${encoded}"`
      ])
    }
    case "percent":
      return wrap(onFirstLine(token, (l) => (g() < 0.5 ? percentAll(l) : l.replace(/[^A-Za-z0-9]/g, (c) => percentAll(c)).replace(/^(.{2})(.)/, (_m, a: string, b: string) => a + percentAll(b)))))
  }
}

export interface CredentialCase {
  readonly format: string
  readonly evasion: Evasion
  readonly text: string
}

/** Formats each evasion is applied to: a fixed share of the formats, chosen by the seed. */
export const EVASION_SHARE = 24

export const generatedCredentials = (seed = 0x23c0ffee): ReadonlyArray<CredentialCase> => {
  const g = makeRng(seed)
  const out: Array<CredentialCase> = []
  for (const f of FORMATS) out.push({ format: f.id, evasion: "none", text: applyEvasion(g, "none", f.make(g)) })
  for (const e of EVASIONS) {
    const chosen = new Set<number>()
    while (chosen.size < EVASION_SHARE) chosen.add(Math.floor(g() * FORMATS.length))
    for (const i of [...chosen].sort((a, b) => a - b)) {
      const f = FORMATS[i]!
      out.push({ format: f.id, evasion: e, text: applyEvasion(g, e, f.make(g)) })
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Clean texts that look close.

export interface CleanCase {
  readonly family: string
  readonly text: string
}

const C = (family: string, make: (g: Rng) => string): { family: string; make: (g: Rng) => string } => ({ family, make })

const pngBase64 = (g: Rng, n: number): string => `iVBORw0KGgoAAAANSUhEUgAA${rs(g, B64, n)}`
const unsignedJwt = (g: Rng): string =>
  `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify({ sub: rs(g, D, 6), scope: "read", iat: 1700000000 }))}.`

const CLEAN_FAMILIES: ReadonlyArray<{ family: string; make: (g: Rng) => string }> = [
  C("git-log", (g) => `commit ${rs(g, H, 40)}\nAuthor: Ada Lovelace <ada@acme.io>\nDate:   Tue Jun 11 10:02:11 2024 +0200\n\n    Fix token refresh race in the auth client`),
  C("git-short-shas", (g) => `${rs(g, H, 7)} Bump yaml to 2.9\n${rs(g, H, 7)} Rotate the staging deploy key (see vault)\n${rs(g, H, 7)} Merge pull request #412`),
  C("commit-in-prose", (g) => `The regression came in with ${rs(g, H, 40)} and was reverted in ${rs(g, H, 12)}.`),
  C("gerrit-change-id", (g) => `Change-Id: I${rs(g, H, 40)}\nSigned-off-by: Ada <ada@acme.io>`),
  C("uuid-request", (g) => `Request IDs are UUIDv4, e.g. ${uuid(g)}; log lines carry them as req_id.`),
  C("uuid-key", (g) => `key: ${uuid(g)}\nname: tenant-${word(g)}`),
  C("uuid-tenant", (g) => `TENANT_ID=${uuid(g)}\nSUBSCRIPTION_ID=${uuid(g)}`),
  C("sha256sum", (g) => `${rs(g, H, 64)}  pm-linux-x64.tar.gz\n${rs(g, H, 64)}  pm-darwin-arm64.tar.gz`),
  C("docker-digest", (g) => `FROM node:22-bookworm@sha256:${rs(g, H, 64)}`),
  C("image-digest-yaml", (g) => `image: ghcr.io/acme/api@sha256:${rs(g, H, 64)}\nimagePullPolicy: IfNotPresent`),
  C("sri-script", (g) => `<script src="https://cdn.acme.io/lib.js" integrity="sha384-${rs(g, B64, 64)}" crossorigin="anonymous"></script>`),
  C("npm-lock-integrity", (g) => `"node_modules/yaml": {\n  "version": "2.9.1",\n  "resolved": "https://registry.npmjs.org/yaml/-/yaml-2.9.1.tgz",\n  "integrity": "sha512-${rs(g, B64, 86)}=="\n}`),
  C("yarn-lock", (g) => `yaml@^2.4.0:\n  version "2.9.1"\n  resolved "https://registry.yarnpkg.com/yaml/-/yaml-2.9.1.tgz#${rs(g, H, 40)}"\n  integrity sha512-${rs(g, B64, 86)}==`),
  C("pnpm-lock", (g) => `  /yaml@2.9.1:\n    resolution: {integrity: sha512-${rs(g, B64, 86)}==}\n    engines: {node: '>= 14'}`),
  C("go-sum", (g) => `golang.org/x/crypto v0.24.0 h1:${rs(g, B64, 43)}=\ngolang.org/x/crypto v0.24.0/go.mod h1:${rs(g, B64, 43)}=`),
  C("cargo-lock", (g) => `[[package]]\nname = "serde"\nversion = "1.0.203"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${rs(g, H, 64)}"`),
  C("nix-hash", (g) => `src = fetchurl {\n  url = "https://example.org/pkg-1.2.tar.gz";\n  hash = "sha256-${rs(g, B64, 43)}=";\n};`),
  C("pip-hashes", (g) => `requests==2.32.3 \\\n    --hash=sha256:${rs(g, H, 64)} \\\n    --hash=sha256:${rs(g, H, 64)}`),
  C("base64-png", (g) => `![logo](data:image/png;base64,${pngBase64(g, 300)}=)`),
  C("base64-svg-css", (g) => `.icon { background: url("data:image/svg+xml;base64,${b64(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${int(g, 8, 64)} 24"><path d="M0 0h24v24H0z" fill="none"/></svg>`)}"); }`),
  C("base64-font", (g) => `src: url(data:font/woff2;base64,d09GMgABAAAAA${rs(g, B64, 200)}) format("woff2");`),
  C("base64-prose", (g) => `The fixture holds ${b64(pick(g, ["this is not a secret, just a test string", "hello from the build pipeline", "{\"name\":\"acme\",\"version\":\"1.2.3\"}", "the token lives in vault under ci/deploy"]))} as sample input.`),
  C("placeholder-angle", (g) => `${pick(g, ["OPENAI_API_KEY", "GITHUB_TOKEN", "STRIPE_SECRET_KEY", "DB_PASSWORD"])}=<your-${pick(g, ["token", "key", "password", "api-key"])}>`),
  C("placeholder-xxx", (g) => `${pick(g, ["export GITHUB_TOKEN=ghp_", "NPM_TOKEN=npm_", "SLACK_TOKEN=xoxb-", "api_key: sk-"])}${"x".repeat(int(g, 8, 36))}`),
  C("placeholder-dots", (g) => `Set ${pick(g, ["OPENAI_API_KEY=sk-...", "ANTHROPIC_API_KEY=sk-ant-...", "STRIPE_KEY=sk_live_...", "HF_TOKEN=hf_..."])} in your shell profile.`),
  C("placeholder-vars", (g) => pick(g, [`TOKEN=\${TOKEN}`, `password: {{ vault_db_password }}`, `api_key = os.environ["API_KEY"]`, `secret: \${{ secrets.DEPLOY_KEY }}`, `PASSWORD=$(cat /run/secrets/db_password)`, `token: "%(ENV_TOKEN)s"`])),
  C("placeholder-words", (g) => `${pick(g, ["password", "api_key", "client_secret", "token"])}: ${pick(g, ["changeme", "YOUR_API_KEY_HERE", "REPLACE_ME", "********", "<redacted>", "TODO", "example-token", "your-secret-here", "dummy", "null"])}`),
  C("example-aws", () => "AWS documents AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as its example pair."),
  C("docs-about-tokens", (g) => pick(g, [
    "GitHub personal access tokens start with ghp_ followed by 36 letters and digits; fine-grained ones start with github_pat_.",
    "Stripe secret keys begin sk_live_ (or sk_test_ in test mode); restricted keys begin rk_.",
    "Slack bot tokens have the prefix xoxb-, user tokens xoxp-, and app-level tokens xapp-.",
    "A Vault service token starts with hvs. and a batch token with hvb.; both expire with their lease.",
    "AWS access key IDs are 20 characters and start with AKIA (long-term) or ASIA (temporary).",
    "The JWT has three base64url parts separated by dots: header, payload and signature."
  ])),
  C("docs-password-policy", (g) => pick(g, [
    "Passwords must be at least 12 characters and are checked against the breached-password list.",
    "Reset your password at https://id.acme.io/reset; the link expires after 15 minutes.",
    "The password for the staging database is stored in AWS Secrets Manager under `staging/db/password`.",
    "Never paste a password into memory; keep it in the vault.",
    "Password: see the team vault (item \"Staging DB\")."
  ])),
  C("env-table", (g) => `| Variable | Meaning |\n|---|---|\n| DB_PASSWORD | the database password, from Vault path ${word(g)}/db |\n| API_TOKEN | issued by the platform team |\n| MAX_TOKENS | ${int(g, 256, 8192)} |`),
  C("code-reads-secret", (g) => pick(g, [
    "const password = process.env.DB_PASSWORD ?? \"\"",
    "password = getpass.getpass(\"Password: \")",
    "token := os.Getenv(\"GITHUB_TOKEN\")",
    "let apiKey = config.get<string>(\"apiKey\")",
    "secret = Secret.from_env('SIGNING_SECRET')",
    "headers = {\"Authorization\": f\"Bearer {token}\"}"
  ])),
  C("shell-prompts", (g) => pick(g, [
    "mysql -h db.internal -u app -p mydb   # prompts for the password",
    "docker login -u ci --password-stdin < token.txt",
    "curl -u \"$USER:$TOKEN\" https://ci.acme.io/api/json",
    "sshpass -f ~/.ssh/pass.txt ssh deploy@host",
    "PGPASSWORD=\"$(vault read -field=password db/creds)\" psql -h db -U app",
    "curl -H \"Authorization: Bearer $ACCESS_TOKEN\" https://api.acme.io"
  ])),
  C("k8s-secret-ref", () => "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password"),
  C("terraform-var", () => "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}"),
  C("limits-settings", (g) => `PASSWORD_MIN_LENGTH=${int(g, 8, 16)}\ntoken_expiry: ${int(g, 60, 86400)}\nmax_tokens: ${int(g, 256, 8192)}\nsecret_rotation_days: 90`),
  C("twilio-sid", (g) => `TWILIO_ACCOUNT_SID=AC${rs(g, H, 32)}\nTWILIO_MESSAGING_SERVICE_SID=MG${rs(g, H, 32)}`),
  C("twilio-sid-prose", (g) => `Messages go out from account AC${rs(g, H, 32)} (the SID is not a secret; the auth token is in Vault).`),
  C("unsigned-jwt", (g) => `The test fixture uses the unsigned token ${unsignedJwt(g)} with alg none.`),
  C("unsigned-jwt-header", (g) => `Authorization: Bearer ${unsignedJwt(g)}`),
  C("ssh-public-key", (g) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${rs(g, B64, 43)} ada@laptop`),
  C("ssh-rsa-public", (g) => `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ${rs(g, B64, 200)} deploy@ci`),
  C("known-hosts", (g) => `github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB${rs(g, B64, 88)}=`),
  C("ssh-fingerprint", (g) => `The host key fingerprint is SHA256:${rs(g, B64, 43)} (ED25519).`),
  C("public-key-pem", (g) => pem(g, "PUBLIC KEY", 6)),
  C("certificate-pem", (g) => pem(g, "CERTIFICATE", 12)),
  C("pgp-public-block", (g) => `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBG${rs(g, B64, 58)}\n${b64Lines(g, 6)}\n=${rs(g, B64, 4)}\n-----END PGP PUBLIC KEY BLOCK-----`),
  C("pgp-fingerprint", (g) => `Release signing key: ${Array.from({ length: 10 }, () => rs(g, HU, 4)).join(" ")}`),
  C("aws-arns", (g) => `arn:aws:iam::${rs(g, D, 12)}:role/deploy\narn:aws:secretsmanager:eu-west-1:${rs(g, D, 12)}:secret:prod/db/password-${rs(g, AN, 6)}`),
  C("aws-resource-ids", (g) => `instance i-0${rs(g, H, 16)} in vpc-0${rs(g, H, 16)}, security group sg-0${rs(g, H, 16)}, AMI ami-0${rs(g, H, 16)}`),
  C("gcp-resource", (g) => `projects/acme-${word(g)}-${rs(g, D, 6)}/secrets/db-password/versions/latest`),
  C("azure-resource-id", (g) => `/subscriptions/${uuid(g)}/resourceGroups/rg-${word(g)}/providers/Microsoft.KeyVault/vaults/kv-${word(g)}`),
  C("stripe-publishable", (g) => `Stripe.js is loaded with the publishable key pk_live_51${mixed(g, AN, 97)} (it is public by design).`),
  C("analytics-ids", (g) => `gtag('config', 'G-${rs(g, UD, 10)}'); // legacy UA-${rs(g, D, 8)}-1`),
  C("google-drive-link", (g) => `The roadmap sheet: https://docs.google.com/spreadsheets/d/1${mixed(g, B64U, 43)}/edit#gid=0`),
  C("youtube-link", (g) => `Demo recording: https://www.youtube.com/watch?v=${mixed(g, B64U, 11)}&t=42s`),
  C("tracking-url", (g) => `https://www.acme.io/pricing?utm_source=newsletter&utm_medium=email&fbclid=IwAR${mixed(g, B64U, 56)}`),
  C("ipfs-cid", (g) => `Pinned at ipfs://bafybei${rs(g, "abcdefghijklmnopqrstuvwxyz234567", 52)}`),
  C("eth-address", (g) => `Treasury contract: 0x${rs(g, H, 40)} on mainnet (checksummed in the README).`),
  C("btc-address", (g) => `Donations: bc1q${rs(g, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38)}`),
  C("csp-nonce", (g) => `Content-Security-Policy: script-src 'self' 'nonce-${rs(g, B64, 22)}=='`),
  C("etag", (g) => `ETag: W/"${rs(g, H, 32)}"\nCache-Control: max-age=300`),
  C("webpack-assets", (g) => `dist/main.${rs(g, H, 8)}.js  142 KiB\ndist/vendor.${rs(g, H, 20)}.js  812 KiB\ndist/runtime.${rs(g, H, 8)}.css`),
  C("k8s-pods", (g) => `api-${rs(g, H, 10)}-${rs(g, LD, 5)}   1/1   Running   0   3d\nworker-${rs(g, H, 10)}-${rs(g, LD, 5)}   1/1   Running   2   3d`),
  C("container-id", (g) => `docker exec -it ${rs(g, H, 12)} sh   # full id ${rs(g, H, 64)}`),
  C("java-fqcn", () => "org.springframework.aop.framework.AbstractSingletonProxyFactoryBean and com.fasterxml.jackson.databind.ObjectMapper"),
  C("long-identifiers", () => "The handler is named handleRefreshTokenRotationWithBackoffAndJitter; see TokenBucketRateLimiterConfiguration."),
  C("hex-colors-css", (g) => `:root { --bg: #${rs(g, H, 6)}; --fg: #${rs(g, H, 6)}; --accent: #${rs(g, H, 8)}; }`),
  C("ip-mac", (g) => `host ${int(g, 10, 192)}.${int(g, 0, 255)}.${int(g, 0, 255)}.${int(g, 1, 254)} mac ${Array.from({ length: 6 }, () => rs(g, H, 2)).join(":")} ipv6 fe80::${rs(g, H, 4)}:${rs(g, H, 4)}`),
  C("url-user-no-password", (g) => `git clone ssh://git@github.com/acme/${word(g)}.git\nhttps://ada@bitbucket.org/acme/${word(g)}.git`),
  C("url-local-default", (g) => pick(g, ["postgres://postgres:postgres@localhost:5432/app", "postgres://user:password@localhost/db", "redis://localhost:6379/0", "amqp://guest:guest@localhost:5672/", "mongodb://root:example@localhost:27017/"])),
  C("connection-placeholder", () => "Server=tcp:db.acme.io,1433;Database=app;User ID=app;Password=<from Key Vault>;Encrypt=True;"),
  C("percent-encoded-url", (g) => `https://www.google.com/search?q=${encodeURIComponent(pick(g, ["how to rotate a github token", "vault token ttl", "what is an api key ✓", "password manager for teams"]))}`),
  C("percent-path", (g) => `Saved to /tmp/${encodeURIComponent(`build output ${word(g)} (copy).txt`)}`),
  C("cyrillic-prose", () => "Пароль хранится в хранилище секретов; токен обновляется каждые 90 дней. Не копируйте его в заметки."),
  C("japanese-fullwidth", () => "ＡＰＩキーは金庫に保存されています。トークンはＣＩが発行します（ＮＯＴＥ：本番のみ）。"),
  C("emoji-zwj", () => "Team: 👩‍💻 Ada, 👨‍🔧 Bob, 🏳️‍🌈 Sam — the deploy key is in 1Password, vault Engineering."),
  C("rtl-prose", () => "The Hebrew UI string \u202bסיסמה\u202c means password; the Arabic one is \u2067كلمة المرور\u2069."),
  C("math-letters", () => "Notation: 𝐱 ∈ ℝⁿ, the loss 𝓛(θ) and the key space 𝒦 of size 2¹²⁸."),
  C("wrapped-prose", () => "The deploy script reads the token from the environ-\nment, never from a file, and the rotation job re-\nplaces it every ninety days."),
  C("wrapped-hash", (g) => `sha256 of the release:\n${rs(g, H, 32)}\n${rs(g, H, 32)}`),
  C("base64-cert-chain", (g) => `ca.crt: ${b64(pem(g, "CERTIFICATE", 4))}`),
  C("kubeconfig-public", (g) => `clusters:\n- cluster:\n    certificate-authority-data: ${b64(pem(g, "CERTIFICATE", 4))}\n    server: https://10.0.0.1:6443\n  name: kind`),
  C("docker-config-helper", () => "{\n  \"auths\": {\"registry.acme.io\": {}},\n  \"credsStore\": \"desktop\",\n  \"credHelpers\": {\"gcr.io\": \"gcloud\"}\n}"),
  C("netrc-placeholder", () => "machine api.github.com login $GITHUB_USER password $GITHUB_TOKEN"),
  C("pgpass-placeholder", () => "# hostname:port:database:username:password\n*:5432:*:app:<see vault>"),
  C("bash-history", (g) => `history | grep -v token\n  ${int(g, 100, 999)}  git push origin main\n  ${int(g, 100, 999)}  npm run build`),
  C("ticket-ids", (g) => `Tracked in JIRA-${int(g, 1000, 9999)} and linear issue ENG-${int(g, 100, 999)}; PR #${int(g, 1, 999)}.`),
  C("semver-list", (g) => `effect@3.${int(g, 10, 22)}.${int(g, 0, 9)} yaml@2.${int(g, 0, 9)}.1 typescript@5.${int(g, 0, 9)}.${int(g, 0, 9)}`),
  C("timestamps", (g) => `2024-06-${int(g, 10, 28)}T10:${int(g, 10, 59)}:${int(g, 10, 59)}.${rs(g, D, 6)}Z build ${rs(g, D, 10)} finished`),
  C("random-seed-config", (g) => `seed: ${int(g, 1, 2 ** 31)}\nshuffle: true\nbatch_size: ${int(g, 8, 512)}`),
  C("hex-dump", (g) => `00000000  ${Array.from({ length: 16 }, () => rs(g, H, 2)).join(" ")}  |................|`),
  C("otp-docs", () => "TOTP secrets are base32 strings; the authenticator app stores them, never the repository."),
  C("md5-checksums", (g) => `MD5 (pm-1.2.0.tgz) = ${rs(g, H, 32)}\nSHA1 (pm-1.2.0.tgz) = ${rs(g, H, 40)}`),
  C("bcrypt-doc", () => "Passwords are hashed with bcrypt (cost 12); the hash column is password_hash."),
  C("secret-names-only", () => "Secrets used by CI: NPM_TOKEN, PYPI_TOKEN, SLACK_WEBHOOK_URL, SENTRY_AUTH_TOKEN. Ask #platform to rotate."),
  C("gh-actions", () => "env:\n  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
  C("vault-paths", () => "vault kv get -field=password secret/data/prod/db\nvault write auth/approle/login role_id=\"$ROLE_ID\" secret_id=\"$SECRET_ID\""),
  C("sops-file", (g) => `sops:\n  age:\n    - recipient: age1${rs(g, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)}\n  lastmodified: "2024-06-11T10:00:00Z"\n  version: 3.8.1`),
  C("age-public", (g) => `Encrypt to the team recipient age1${rs(g, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)}.`),
  C("sentry-public-docs", () => "Sentry DSNs look like https://<key>@o<org>.ingest.sentry.io/<project>; ours is in the SENTRY_DSN secret."),
  C("slack-ids", (g) => `Post to channel C${rs(g, UD, 10)} as user U${rs(g, UD, 10)} in workspace T${rs(g, UD, 10)}.`),
  C("discord-ids", (g) => `The bot lives in guild ${rs(g, D, 18)}, channel ${rs(g, D, 19)}.`),
  C("stripe-object-ids", (g) => `Refund re_${mixed(g, AN, 24)} for charge ch_${mixed(g, AN, 24)} of customer cus_${mixed(g, AN, 14)}.`),
  C("github-ids", (g) => `Node id MDQ6VXNlcjE${rs(g, D, 6)}, run ${rs(g, D, 10)}, check suite ${rs(g, D, 11)}.`),
  C("oauth-client-id", (g) => `GOOGLE_CLIENT_ID=${rs(g, D, 12)}-${rs(g, LD, 32)}.apps.googleusercontent.com`),
  C("algolia-app-id", (g) => `ALGOLIA_APP_ID=${rs(g, UD, 10)}\nALGOLIA_SEARCH_ONLY_KEY is public and lives in the frontend config.`),
  C("mapbox-public-token", (g) => `Map tiles use the public token pk.eyJ1IjoiYWNtZSIsImEiOiJ${mixed(g, B64U, 20)}.${mixed(g, B64U, 22)} (scoped to our domains).`),
  C("minified-js", (g) => `!function(e,t){"use strict";var n=t.getTokenCount,r="${rs(g, L, 8)}";e.tokenize=function(o){return n(o,r)}}(window,api);`),
  C("regex-doc", () => "The rule matches `ghp_[A-Za-z0-9]{36}` and `AKIA[0-9A-Z]{16}`; both are documented formats."),
  C("password-flag-prompt", () => "Run `pm-admin --password` without a value to be prompted, or `--password-file ~/.pm/pass`."),
  C("long-words", () => "Pneumonoultramicroscopicsilicovolcanoconiosis and Supercalifragilisticexpialidocious are long words."),
  C("lorem", () => "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore."),
  C("yaml-block-prose", () => "description: |\n  The token service issues short-lived credentials\n  to CI runners; nothing here is a secret."),
  C("xml-config-safe", () => "<server>\n  <id>releases</id>\n  <username>${env.NEXUS_USER}</username>\n  <password>${env.NEXUS_PASSWORD}</password>\n</server>"),
  C("ini-safe", () => "[database]\nhost = db.internal\nport = 5432\npassword_file = /run/secrets/db"),
  C("http-headers-safe", (g) => `X-Request-Id: ${uuid(g)}\nX-Trace-Id: ${rs(g, H, 32)}\nAccept: application/json`),
  C("session-ids-log", (g) => `2024-06-11 10:02:11 INFO session=${rs(g, H, 16)} user=ada action=login ok`),
  C("jwt-doc", () => "A JWT header such as eyJhbGciOiJIUzI1NiJ9 decodes to {\"alg\":\"HS256\"}; never store a signed token here."),
  C("percent-emoji", () => "The file name was caf%C3%A9-men%C3%BC.pdf after upload."),
  C("base64-json-config", (g) => `ANNOTATION=${b64(JSON.stringify({ team: "platform", owner: "ada", tier: int(g, 1, 3) }))}`),
  C("random-test-ids", (g) => `test("renders ${rs(g, L, 6)}", ...) // snapshot ${rs(g, H, 8)}`),
  C("memory-note", (g) => `---\nname: Deploy procedure\ndescription: Steps for deploying ${word(g)}\nmetadata:\n  type: project\n---\n1. \`make deploy ENV=staging\`\n2. The deploy token is the DEPLOY_TOKEN secret of the repository.`),
  C("crontab", () => "*/15 * * * * /usr/local/bin/rotate-tokens --dry-run >> /var/log/rotate.log 2>&1"),
  C("sql-schema", () => "CREATE TABLE users (id uuid primary key, password_hash text not null, api_token_hash text);"),
  C("openapi-security", () => "components:\n  securitySchemes:\n    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key"),
  C("markdown-badge", (g) => `[![codecov](https://codecov.io/gh/acme/api/branch/main/graph/badge.svg?token=${rs(g, UD, 10)})](https://codecov.io/gh/acme/api)`)
]

/** Each clean family made several times with different values. */
export const CLEAN_VARIANTS = 2

export const generatedClean = (seed = 0x0c1ea4): ReadonlyArray<CleanCase> => {
  const g = makeRng(seed)
  const out: Array<CleanCase> = []
  const seen = new Set<string>()
  for (let round = 0; round < CLEAN_VARIANTS; round++) {
    for (const c of CLEAN_FAMILIES) {
      const text = c.make(g)
      if (seen.has(text)) continue
      seen.add(text)
      out.push({ family: c.family, text })
    }
  }
  return out
}
