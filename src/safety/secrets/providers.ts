/**
 * Provider token formats: one entry per provider credential whose shape is published (a fixed prefix, a length, an
 * alphabet). Written from the providers' own documentation of their token formats. Each entry names the kind, how
 * messages name it, the literal strings one of which a text must hold for the rule to run (a cheap prefilter), and
 * the token's shape as a pattern body; the detector wraps the body in token boundaries.
 *
 * Every quantifier is bounded, and every body starts with a literal or a bounded class behind a lookbehind, so a
 * match attempt costs at most its bound (see the linear-time tests).
 */

export interface ProviderRule {
  readonly kind: string
  readonly label: string
  /** Case-sensitive literals; the rule runs only when the text holds one. */
  readonly triggers: ReadonlyArray<string>
  /** The token's shape, without boundaries. */
  readonly body: string
  /** Characters that may not touch the token on either side; default letters, digits and `_`. */
  readonly edge?: string
  /** The token must mix letters and digits (for bodies loose enough to match words). */
  readonly mixed?: boolean
  /** Where one of its triggers starts in every token, in characters from its start (from, to): for bodies that open with a class. */
  readonly at?: readonly [number, number]
}

const AN = "A-Za-z0-9"
const W = "A-Za-z0-9_\\-"
const HEX = "a-f0-9"

const p = <K extends string>(
  kind: K,
  label: string,
  triggers: ReadonlyArray<string>,
  body: string,
  extra: Pick<ProviderRule, "edge" | "mixed" | "at"> = {}
): ProviderRule & { readonly kind: K } => ({ ...extra, kind, label, triggers, body })

export const PROVIDER_RULES = [
  // --- cloud platforms and infrastructure
  p("alibaba-access-key", "an Alibaba Cloud access key", ["LTAI"], `LTAI[${AN}]{20}`, { mixed: true }),
  p("tencent-secret-id", "a Tencent Cloud secret ID", ["AKID"], `AKID[${AN}]{32}`, { mixed: true }),
  p("aws-session-token", "an AWS session token", ["IQoJb3JpZ2lu", "FwoGZXIvYXdz"], `(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9+/=]{100,2000}`),
  p("aws-bedrock-key", "an AWS Bedrock API key", ["ABSK"], `ABSK[A-Za-z0-9+/]{100,400}={0,2}`),
  p("google-oauth-client-secret", "a Google OAuth client secret", ["GOCSPX-"], `GOCSPX-[${W}]{28}`, { edge: W }),
  p("google-oauth-refresh-token", "a Google OAuth refresh token", ["1//0"], `1//0[${W}]{40,512}`, { edge: W + "/" }),
  p("google-oauth-access-token", "a Google OAuth access token", ["ya29."], `ya29\\.[${W}]{30,2048}`, { edge: W }),
  p("azure-ad-client-secret", "an Azure AD client secret", ["Q~"], `[${W}~.]{3}[0-9]Q~[${W}~.]{31,34}`, { edge: W + "~." }),
  p("digitalocean-token", "a DigitalOcean token", ["dop_v1_", "doo_v1_", "dor_v1_"], `do[por]_v1_[${HEX}]{64}`),
  p("heroku-api-key", "a Heroku API key", ["HRKU-"], `HRKU-[${W}]{58,60}`, { edge: W }),
  p("cloudflare-origin-ca-key", "a Cloudflare Origin CA key", ["v1.0-"], `v1\\.0-[${HEX}]{24}-[${HEX}]{146}`),
  p("netlify-token", "a Netlify token", ["nfp_", "nfc_", "nfo_"], `nf[pco]_[${AN}]{36,40}`, { mixed: true }),
  p("flyio-token", "a Fly.io token", ["fm1", "fm2_", "fo1_"], `(?:fm[12][ar]?_[A-Za-z0-9+/=_-]{100,4096}|fo1_[${W}]{43})`, { edge: W + "+/=" }),
  p("render-api-key", "a Render API key", ["rnd_"], `rnd_[${AN}]{32}`, { mixed: true }),
  p("supabase-token", "a Supabase token", ["sbp_", "sb_secret_"], `(?:sbp_(?:oauth_)?[${HEX}]{40}|sb_secret_[${W}]{31,64})`, { edge: W }),
  p("planetscale-token", "a PlanetScale token", ["pscale_"], `pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}`, { edge: W + "=." }),
  p("databricks-token", "a Databricks token", ["dapi", "dose"], `(?:dapi|dose)[${HEX}]{32}(?:-[0-9])?`),
  p("vault-token", "a HashiCorp Vault token", ["hvs.", "hvb.", "hvr."], `hv[sbr]\\.[${W}]{24,400}`, { edge: W + "." }),
  p("terraform-cloud-token", "a Terraform Cloud token", [".atlasv1."], `[${AN}]{14}\\.atlasv1\\.[${W}=]{60,90}`, { edge: W + "=", at: [14, 14] }),
  p("pulumi-token", "a Pulumi access token", ["pul-"], `pul-[${HEX}]{40}`),
  p("doppler-token", "a Doppler token", ["dp."], `dp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[${AN}]{40,64}`),
  p("onepassword-token", "a 1Password service-account token", ["ops_eyJ"], `ops_eyJ[A-Za-z0-9+/=_-]{100,8192}`, { edge: W + "+/=" }),
  p("onepassword-secret-key", "a 1Password secret key", ["A3-"], `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`, { edge: W }),
  p("infracost-key", "an Infracost API key", ["ico-"], `ico-[${AN}]{32}`, { mixed: true }),
  p("openshift-token", "an OpenShift token", ["sha256~"], `sha256~[${W}]{43}`, { edge: W }),
  p("portainer-token", "a Portainer token", ["ptr_"], `ptr_[A-Za-z0-9+/_-]{40,50}={0,2}`, { edge: W + "+/=" }),
  p("tailscale-key", "a Tailscale key", ["tskey-"], `tskey-(?:auth|api|client|scim|webhook)-[${AN}]{6,24}-[${AN}]{20,64}`, { edge: W }),
  p("scaleway-key", "a Scaleway access key", ["SCW"], `SCW[A-Z0-9]{17}`, { mixed: true }),
  p("yandex-credential", "a Yandex Cloud credential", ["AQVN", "t1.", "YC"], `(?:AQVN[${W}]{35,38}|t1\\.[A-Z0-9a-z_-]{80,100}={0,2}\\.[A-Z0-9a-z_-]{86}={0,2}|YC[${W}]{38})`, { edge: W, mixed: true }),
  p("defined-networking-key", "a Defined Networking API key", ["dnkey-"], `dnkey-[${W}=]{26}-[${W}=]{52}`, { edge: W }),
  p("scalingo-token", "a Scalingo token", ["tk-us-"], `tk-us-[${W}]{48}`, { edge: W }),
  p("age-secret-key", "an age secret key", ["AGE-SECRET-KEY-1"], "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
  // --- source hosting, CI and package registries
  p("gitlab-runner-registration", "a GitLab runner registration token", ["GR1348941"], `GR1348941[${W}]{20,40}`, { edge: W }),
  p("bitbucket-app-password", "a Bitbucket app password", ["ATBB"], `ATBB[A-Za-z0-9_=.-]{28,64}`, { edge: W + "=." }),
  p("atlassian-api-token", "an Atlassian API token", ["ATATT3", "ATCTT3", "ATSTT3"], `AT[ACS]TT3[A-Za-z0-9_=-]{100,400}`, { edge: W + "=" }),
  p("rubygems-key", "a RubyGems API key", ["rubygems_"], `rubygems_[${HEX}]{48}`),
  p("nuget-key", "a NuGet API key", ["oy2"], "oy2[a-z0-9]{43}", { mixed: true }),
  p("docker-hub-token", "a Docker Hub access token", ["dckr_"], `dckr_(?:pat|oat)_[${W}]{27,40}`, { edge: W }),
  p("jfrog-token", "a JFrog token", ["AKCp", "cmVmdGtu"], `(?:AKCp[${AN}]{60,80}|cmVmdGtu[${AN}]{50,70})`, { mixed: true }),
  p("clojars-token", "a Clojars token", ["CLOJARS_"], "CLOJARS_[a-z0-9]{60}"),
  p("packagist-token", "a Packagist token", ["packagist_"], `packagist_[ou][ua]t_[${AN}]{60,80}`),
  p("sonarqube-token", "a SonarQube token", ["squ_", "sqp_", "sqa_"], `sq[upa]_[${HEX}]{40}`),
  p("circleci-token", "a CircleCI token", ["CCIPAT_", "CCIPRJ_"], `CCIP(?:AT|RJ)_[${AN}]{20,24}_[${HEX}]{40}`),
  p("buildkite-token", "a Buildkite token", ["bkua_"], `bkua_[${HEX}]{40}`),
  p("octopus-api-key", "an Octopus Deploy API key", ["API-"], "API-[A-Z0-9]{26,32}", { mixed: true }),
  p("harness-token", "a Harness token", ["pat.", "sat."], `(?:pat|sat)\\.[${W}]{22}\\.[${HEX}]{24}\\.[${AN}]{20}`, { edge: W + "." }),
  p("sourcegraph-token", "a Sourcegraph token", ["sgp_", "sgs_"], `sg[ps]_(?:[${HEX}]{16}_)?[${HEX}]{40}`),
  p("postman-api-key", "a Postman API key", ["PMAK-"], `PMAK-[${HEX}]{24}-[${HEX}]{34}`, { edge: W }),
  p("readme-api-key", "a ReadMe API key", ["rdme_"], `rdme_[${HEX}]{70}`),
  p("prefect-api-key", "a Prefect API key", ["pnu_"], `pnu_[${AN}]{36}`, { mixed: true }),
  p("dbt-cloud-token", "a dbt Cloud token", ["dbtc_", "dbtu_"], `dbt[cu]_[${W}]{30,70}`, { edge: W, mixed: true }),
  // --- AI providers
  p("openrouter-key", "an OpenRouter API key", ["sk-or-"], `sk-or-v1-[${HEX}]{64}`, { edge: W }),
  p("groq-key", "a Groq API key", ["gsk_"], `gsk_[${AN}]{52}`, { mixed: true }),
  p("replicate-token", "a Replicate API token", ["r8_"], `r8_[${AN}]{37}`, { mixed: true }),
  p("perplexity-key", "a Perplexity API key", ["pplx-"], `pplx-[${AN}]{48}`, { edge: W, mixed: true }),
  p("xai-key", "an xAI API key", ["xai-"], `xai-[${AN}]{80}`, { edge: W, mixed: true }),
  p("langsmith-key", "a LangSmith API key", ["lsv2_"], `lsv2_(?:pt|sk)_[${HEX}]{32}_[${HEX}]{10}`),
  p("pinecone-key", "a Pinecone API key", ["pcsk_"], `pcsk_[${AN}]{4,10}_[${AN}]{50,80}`, { mixed: true }),
  p("fireworks-key", "a Fireworks API key", ["fw_"], `fw_[${AN}]{20,30}`, { mixed: true }),
  p("elevenlabs-key", "an ElevenLabs API key", ["sk_"], `sk_[${HEX}]{48}`, { mixed: true }),
  // --- payments and commerce
  p("stripe-secret-key", "a Stripe secret key", ["sk_test_", "rk_test_"], `[sr]k_test_[${AN}]{20,250}`, { mixed: true }),
  p("stripe-webhook-secret", "a Stripe webhook signing secret", ["whsec_"], `whsec_[${AN}]{32,64}`, { mixed: true }),
  p("square-token", "a Square token", ["EAAA", "sq0atp-", "sq0csp-"], `(?:EAAA[${W}]{60}|sq0atp-[${W}]{22}|sq0csp-[${W}]{43})`, { edge: W, mixed: true }),
  p("braintree-token", "a Braintree access token", ["access_token$"], `access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$[${HEX}]{32}`),
  p("shopify-token", "a Shopify token", ["shpat_", "shpss_", "shpca_", "shppa_"], `shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`),
  p("flutterwave-secret", "a Flutterwave secret key", ["FLWSECK"], `FLWSECK(?:_TEST)?-[${HEX}]{32}-X`, { edge: W }),
  p("plaid-token", "a Plaid access token", ["access-production-", "access-development-", "access-sandbox-"], `access-(?:production|development|sandbox)-[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}`, { edge: W }),
  p("gocardless-token", "a GoCardless access token", ["live_"], `live_[${W}]{40}`, { edge: W, mixed: true }),
  p("duffel-token", "a Duffel token", ["duffel_"], `duffel_(?:live|test)_[${W}=]{43}`, { edge: W }),
  p("shippo-token", "a Shippo token", ["shippo_"], `shippo_(?:live|test)_[${HEX}]{40}`),
  p("easypost-key", "an EasyPost API key", ["EZAK", "EZTK"], "EZ[AT]K[a-z0-9]{54}", { mixed: true }),
  // --- messaging and collaboration
  p("slack-app-token", "a Slack app-level token", ["xapp-"], `xapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,14}-[${HEX}]{32,80}`, { edge: W }),
  p("discord-bot-token", "a Discord bot token", ["."], `[MNO][${AN}]{23,27}\\.[${W}]{6}\\.[${W}]{27,40}`, { edge: W + ".", mixed: true, at: [24, 28] }),
  p("discord-webhook", "a Discord webhook URL", ["discord"], `https://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/[0-9]{17,20}/[${W}]{60,68}`, { edge: W }),
  p("telegram-bot-token", "a Telegram bot token", [":AA"], `[0-9]{8,10}:AA[${W}]{33}`, { edge: W + ":", at: [8, 10] }),
  p("teams-webhook", "a Microsoft Teams webhook URL", ["webhook.office.com", "outlook.office.com/webhook"], `https://[${W}.]{1,80}\\.(?:webhook\\.office\\.com/webhookb2|office\\.com/webhook)/[A-Za-z0-9@-]{36,100}/IncomingWebhook/[${HEX}]{32}/[${HEX}-]{36}(?:/V2[A-Za-z0-9_-]{20,80})?`),
  p("zapier-webhook", "a Zapier webhook URL", ["hooks.zapier.com"], "https://hooks\\.zapier\\.com/hooks/catch/[0-9]{4,12}/[a-z0-9]{4,12}", { edge: W }),
  p("mattermost-webhook", "a Mattermost webhook URL", ["/hooks/"], `https?://[${W}.]{1,100}(?::[0-9]{2,5})?/hooks/[a-z0-9]{26}`, { edge: W }),
  p("google-chat-webhook", "a Google Chat webhook URL", ["chat.googleapis.com"], `https://chat\\.googleapis\\.com/v1/spaces/[${W}]{5,30}/messages\\?key=[${W}]{20,60}&token=[${W}%]{20,100}`),
  p("mailgun-key", "a Mailgun API key", ["key-"], `key-[${HEX}]{32}`, { edge: W }),
  p("mailchimp-key", "a Mailchimp API key", ["-us"], `[${HEX}]{32}-us[0-9]{1,2}`, { edge: W, at: [32, 32] }),
  p("brevo-key", "a Brevo API key", ["xkeysib-", "xsmtpsib-"], `x(?:keysib|smtpsib)-[${HEX}]{64}-[${AN}]{16}`, { edge: W }),
  p("linear-key", "a Linear API key", ["lin_api_", "lin_oauth_"], `lin_(?:api_[${AN}]{40}|oauth_[${HEX}]{64})`),
  p("notion-token", "a Notion token", ["secret_", "ntn_"], `(?:secret_[${AN}]{43}|ntn_[0-9]{11}[${AN}]{35})`, { mixed: true }),
  p("airtable-token", "an Airtable token", ["pat"], `pat[${AN}]{14}\\.[${HEX}]{64}`),
  p("asana-token", "an Asana token", ["/"], `[0-9]/[0-9]{16}(?:/[0-9]{16})?:[${HEX}]{32}`, { edge: W + "/", at: [1, 1] }),
  p("clickup-token", "a ClickUp token", ["pk_"], "pk_[0-9]{6,10}_[A-Z0-9]{32}"),
  p("figma-token", "a Figma token", ["figd_", "figu_"], `fig[du]_[${W}]{40}`, { edge: W }),
  p("contentful-token", "a Contentful token", ["CFPAT-"], `CFPAT-[${W}]{43}`, { edge: W }),
  p("typeform-token", "a Typeform token", ["tfp_"], `tfp_[${W}.=]{56,64}`, { edge: W + ".=" }),
  p("dropbox-token", "a Dropbox token", ["sl."], `sl\\.(?:u\\.)?[${W}]{130,1400}`, { edge: W + "." }),
  p("hubspot-token", "a HubSpot token", ["pat-na", "pat-eu"], `pat-(?:na|eu)[0-9]-[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}`, { edge: W }),
  p("intercom-token", "an Intercom token", ["dG9rOj"], "dG9rOj[A-Za-z0-9+/]{40,80}={0,2}", { edge: W + "+/=" }),
  p("trello-token", "a Trello token", ["ATTA"], `ATTA[${HEX}]{64}[A-F0-9]{8}`),
  p("frameio-token", "a Frame.io token", ["fio-u-"], `fio-u-[${W}=]{64}`, { edge: W }),
  p("adobe-secret", "an Adobe client secret", ["p8e-"], `p8e-[${AN}]{32}`, { edge: W, mixed: true }),
  p("facebook-token", "a Facebook access token", ["EAA"], `EAA[A-Z][${AN}]{80,255}`, { mixed: true }),
  p("twitter-bearer-token", "a Twitter bearer token", ["AAAAAAAAAAAAAAAAAAAAA"], `A{21}[${AN}%]{30,200}`, { edge: W + "%" }),
  p("firebase-fcm-key", "a Firebase Cloud Messaging server key", [":APA91b"], `AAAA[${W}]{7}:APA91b[${W}]{100,180}`, { edge: W }),
  p("salesforce-token", "a Salesforce access token", ["00D"], `00D[${AN}]{12,15}![${AN}.]{80,200}`, { edge: W + ".!" }),
  p("adafruit-key", "an Adafruit IO key", ["aio_"], `aio_[${AN}]{28}`, { mixed: true }),
  p("maxmind-key", "a MaxMind license key", ["_mmk"], `[${AN}]{6}_[${AN}]{29}_mmk`, { at: [36, 36] }),
  p("ably-key", "an Ably API key", ["."], `[${W}]{6}\\.[${W}]{6}:[${W}]{40,43}`, { edge: W + ".:", mixed: true, at: [6, 6] }),
  p("sidekiq-credential", "a Sidekiq Enterprise credential", ["CONTRIBSYS", "contribsys"], `(?:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM=|https?://)[${HEX}]{8}:[${HEX}]{8}`),
  // --- observability and analytics
  p("sentry-dsn", "a Sentry DSN", ["@"], `https?://[${HEX}]{32}@[${W}.]{1,100}/[0-9]{1,12}`, { edge: W }),
  p("sentry-token", "a Sentry token", ["sntrys_", "sntryu_"], `sntry(?:s_eyJ[A-Za-z0-9+/=_]{40,400}|u_[${HEX}]{64})`, { edge: W + "+/=" }),
  p("newrelic-key", "a New Relic key", ["NRAK-", "NRII-", "NRJS-", "NRAA-", "NRAL"], `(?:NRAK-[A-Z0-9]{27}|NRII-[${W}]{32}|NRJS-[${HEX}]{19}|NRAA-[${HEX}]{27}|[${HEX}]{36}NRAL)`, { edge: W, at: [0, 36] }),
  p("grafana-token", "a Grafana token", ["glc_", "glsa_", "eyJrIjoi"], `(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[${AN}]{32}_[${HEX}]{8}|eyJrIjoi[A-Za-z0-9+/]{50,100}={0,2})`, { edge: W + "+/=" }),
  p("dynatrace-token", "a Dynatrace token", ["dt0c01."], "dt0c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}"),
  p("mapbox-secret-token", "a Mapbox secret token", ["sk.eyJ"], `sk\\.eyJ[${W}]{30,200}\\.[${W}]{20,40}`, { edge: W + "." }),
  p("launchdarkly-key", "a LaunchDarkly key", ["sdk-", "api-"], `(?:sdk|api)-[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}`, { edge: W }),
  p("twilio-credential", "a Twilio API key", ["SK"], `SK[0-9a-fA-F]{32}`, { mixed: true }),
  // --- more AI, developer and data platforms
  p("azure-devops-pat", "an Azure DevOps personal access token", ["AZDO"], `[${AN}]{52}JQQJ99[${AN}][A-C][${AN}]{5}AZDO[${AN}]{4}`, { at: [65, 65] }),
  p("nvidia-api-key", "an NVIDIA API key", ["nvapi-"], `nvapi-[${W}]{64}`, { edge: W, mixed: true }),
  p("cerebras-key", "a Cerebras API key", ["csk-"], "csk-[a-z0-9]{48}", { edge: W, mixed: true }),
  p("tavily-key", "a Tavily API key", ["tvly-"], `tvly-(?:dev-|prod-)?[${AN}]{32}`, { edge: W, mixed: true }),
  p("firecrawl-key", "a Firecrawl API key", ["fc-"], `fc-[${HEX}]{32}`, { edge: W, mixed: true }),
  p("browserbase-key", "a Browserbase API key", ["bb_live_"], `bb_live_[${W}]{27}`, { edge: W }),
  p("e2b-key", "an E2B API key", ["e2b_"], `e2b_[${HEX}]{40}`),
  p("modal-token-secret", "a Modal token secret", ["as-"], `as-[${AN}]{22}`, { edge: W, mixed: true }),
  p("resend-key", "a Resend API key", ["re_"], `re_[${AN}]{8}_[${AN}]{24}`, { mixed: true }),
  p("neon-key", "a Neon API key", ["napi_"], "napi_[a-z0-9]{64}", { mixed: true }),
  p("honeycomb-ingest-key", "a Honeycomb ingest key", ["hcaik_", "hcxik_"], "hc[ax]ik_[a-z0-9]{58}", { mixed: true }),
  p("axiom-token", "an Axiom token", ["xaat-", "xapt-"], `xa[ap]t-[${HEX}]{8}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{4}-[${HEX}]{12}`, { edge: W }),
  p("cloudflare-tunnel-token", "a Cloudflare Tunnel token", ["eyJhIjoi"], "eyJhIjoi[A-Za-z0-9+/]{100,400}={0,2}", { edge: W + "+/=" }),
  p("wix-api-key", "a Wix API key", ["IST.eyJ"], `IST\\.eyJ[${W}]{40,1000}\\.[${W}]{20,1000}(?:\\.[${W}]{20,600})?`, { edge: W + "." }),
  p("vercel-blob-token", "a Vercel Blob token", ["vercel_blob_rw_"], `vercel_blob_rw_[${AN}]{16}_[${AN}]{30}`),
  p("posthog-personal-key", "a PostHog personal API key", ["phx_"], `phx_[${AN}]{43}`, { mixed: true }),
  p("statsig-server-secret", "a Statsig server secret", ["secret-"], `secret-[${AN}]{43}`, { edge: W, mixed: true }),
  p("flagsmith-server-key", "a Flagsmith server key", ["ser."], `ser\\.[${AN}]{22}`, { edge: W + ".", mixed: true }),
  p("ghost-admin-key", "a Ghost Admin API key", [":"], `[${HEX}]{24}:[${HEX}]{64}`, { edge: W + ":", at: [24, 24] }),
  p("telnyx-key", "a Telnyx API key", ["KEY"], `KEY[0-9A-F]{32}_[${AN}]{22}`, { mixed: true }),
  // --- crypto wallets
  p("bitcoin-wif", "a Bitcoin private key (WIF)", ["5H", "5J", "5K"], "5[HJK][1-9A-HJ-NP-Za-km-z]{49}", { mixed: true })
] as const

export type ProviderKind = (typeof PROVIDER_RULES)[number]["kind"]
