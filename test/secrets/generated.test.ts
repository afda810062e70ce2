/**
 * The detector against the generated corpus (formats it was not written against, with evasions), the tool shapes
 * and wrappings named in issue 23, the normalised and decoded views, and their exact limits.
 */
import { describe, expect, it } from "vitest"
import { detectSecrets, secretRefusalReason } from "../../src/safety/secrets.ts"
import type { SecretKind } from "../../src/safety/secrets/kinds.ts"
import { characterView, decodedRuns, joinedView } from "../../src/safety/secrets/views.ts"
import { EVASION_SHARE, EVASIONS, FORMATS, generatedClean, generatedCredentials } from "./generatedCorpus.ts"

const kinds = (text: string): ReadonlyArray<SecretKind> => detectSecrets(text).map((f) => f.kind)
const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64")

describe("the generated corpus", () => {
  const credentials = generatedCredentials()
  const clean = generatedClean()

  it("holds at least 150 formats, each evasion on its share of them, and at least 150 clean texts", () => {
    expect(FORMATS.length).toBeGreaterThanOrEqual(150)
    expect(new Set(FORMATS.map((f) => f.id)).size).toBe(FORMATS.length)
    for (const e of EVASIONS) expect(credentials.filter((c) => c.evasion === e), e).toHaveLength(EVASION_SHARE)
    expect(clean.length).toBeGreaterThanOrEqual(150)
  })

  it("is the same on every run (fixed seed)", () => {
    expect(generatedCredentials().map((c) => c.text)).toEqual(credentials.map((c) => c.text))
    expect(generatedClean().map((c) => c.text)).toEqual(clean.map((c) => c.text))
  })

  it("catches at least 95 % of the credentials, and at least 90 % under each evasion", () => {
    const caught = (cs: typeof credentials) => cs.filter((c) => detectSecrets(c.text).length > 0).length / cs.length
    expect(caught(credentials)).toBeGreaterThanOrEqual(0.95)
    for (const e of ["none", ...EVASIONS] as const) expect(caught(credentials.filter((c) => c.evasion === e)), e).toBeGreaterThanOrEqual(0.9)
  })

  it("misses exactly the two it is known to miss (549 of 551 caught) and flags none of the clean texts", () => {
    // Pinned, so a change made for speed that loses or adds a finding fails here (docs/cost.md, docs/credentials.md).
    const missed = credentials.filter((c) => detectSecrets(c.text).length === 0).map((c) => `${c.format} (${c.evasion})`)
    expect(missed).toEqual(["logzio-token (none)", "logzio-token (split-lines)"])
    expect(credentials).toHaveLength(551)
    expect(clean.filter((c) => detectSecrets(c.text).length > 0).map((c) => c.family)).toEqual([])
  })

  it("flags at most 2 % of the clean texts", () => {
    const flagged = clean.filter((c) => detectSecrets(c.text).length > 0)
    expect(flagged.length / clean.length).toBeLessThanOrEqual(0.02)
  })

  it("reports each finding on a line of the credential when it sits between two clean notes", () => {
    const note = clean.find((c) => c.family === "memory-note")!.text
    const before = `${note}\n\n`
    const firstLine = before.split("\n").length
    for (const c of credentials) {
      const findings = detectSecrets(`${before}${c.text}\n\n${note}`)
      if (detectSecrets(c.text).length === 0) continue
      const lastLine = firstLine + c.text.split("\n").length - 1
      expect(findings.length, c.format).toBeGreaterThan(0)
      for (const f of findings) {
        expect(f.line, `${c.format} ${c.evasion}`).toBeGreaterThanOrEqual(firstLine)
        expect(f.line, `${c.format} ${c.evasion}`).toBeLessThanOrEqual(lastLine)
      }
    }
  })
})

const token = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"

describe("evasions are undone, and findings are reported where the text as written has them", () => {
  it("zero-width and bidi characters inside a token", () => {
    const text = `ci uses ${token.slice(0, 6)}\u200b${token.slice(6, 20)}\u202e\u2066${token.slice(20)}`
    expect(detectSecrets(text)).toEqual([{ kind: "github-token", line: 1, column: 9 }])
  })

  it("fullwidth and mathematical letters (NFKC), columns in UTF-16 units of the original", () => {
    const fullwidth = `x ${[..."ghp_"].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join("")}${token.slice(4)}`
    expect(detectSecrets(fullwidth)).toEqual([{ kind: "github-token", line: 1, column: 3 }])
    const math = `\u{1d400}\u{1d401} ${"\u{1d420}\u{1d421}\u{1d429}"}_${token.slice(4)}`
    expect(detectSecrets(math)).toEqual([{ kind: "github-token", line: 1, column: 6 }])
  })

  it("Cyrillic and Greek look-alike letters in the prefix", () => {
    expect(kinds(`AWS: \u0410KI\u0391${"Q3EGRT5MZ7XJ2KPL"}`)).toEqual(["aws-access-key-id"])
    expect(kinds(`sk_liv\u0435_${"51Hq8xRm2VbN4kLp7TzW9cYd3FgJ6sA1"}`)).toEqual(["stripe-live-key"])
  })

  it("a token cut across lines, and a shell continuation line", () => {
    expect(detectSecrets(`notes\nthe token ${token.slice(0, 21)}\n${token.slice(21)} is old`)).toEqual([
      { kind: "github-token", line: 2, column: 11 }
    ])
    expect(detectSecrets(`export X="${token.slice(0, 12)}\\\n    ${token.slice(12)}"`)).toEqual([
      { kind: "github-token", line: 1, column: 11 }
    ])
  })

  it("base64-wrapped and percent-encoded tokens, reported at the encoded run", () => {
    const wrapped = `line one\nrun: echo ${b64(`GITHUB_TOKEN=${token}`)} | base64 -d`
    expect(detectSecrets(wrapped)).toEqual([{ kind: "github-token", line: 2, column: 11 }])
    const percent = `t=${[...token].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`
    expect(detectSecrets(percent)).toEqual([{ kind: "github-token", line: 1, column: 3 }])
    expect(kinds(`https://api.acme.io/?access_token=${encodeURIComponent("Zq7/Lm2+Xc9Vb4=Nk8Rt5")}`)).toEqual(["secret-assignment"])
  })

  it("decodes two layers of base64, not three", () => {
    const once = b64(`key ${token}`)
    expect(kinds(b64(once))).toEqual(["github-token"])
    expect(kinds(b64(b64(once)))).toEqual([])
  })

  it("decodes base64 runs from 20 characters, not 19", () => {
    expect(decodedRuns(b64("fifteen bytes!!")).length).toBe(1) // 20 characters
    expect(b64("fifteen bytes!!")).toHaveLength(20)
    expect(decodedRuns(b64("fifteen bytes!!").slice(0, 19))).toEqual([])
  })

  it("rejoins a line break after 8 mixed token characters, not after 7", () => {
    expect(joinedView("Ab12cd3\nef")).toBeUndefined()
    expect(joinedView("Ab12cd34\nef")?.text).toBe("Ab12cd34ef")
    // Lowercase prose cut with a hyphen is not a token, and a line starting a new setting is not its second half.
    expect(joinedView("the environ-\nment")).toBeUndefined()
    expect(joinedView("KEY=Ab12cd34\npay=ef")).toBeUndefined()
    expect(characterView("Ab12cd34\nef")).toBeUndefined()
  })

  it("a line of ordinary non-ASCII prose changes nothing and finds nothing", () => {
    for (const text of ["Пароль хранится в хранилище секретов.", "ＡＰＩキーは金庫に保存されています。", "👩‍💻 the deploy key is in 1Password"]) {
      expect(kinds(text), text).toEqual([])
    }
  })
})

describe("credentials in the shape of their tools", () => {
  const cases: ReadonlyArray<readonly [string, SecretKind]> = [
    ["machine api.acme.io login deploy password Xk9mQ2pLw7vB", "netrc-credential"],
    ["machine github.com\n  login bot\n  password Xk9mQ2pLw7vBn3Rt", "netrc-credential"],
    ["db.internal:5432:app:app_user:Xk9mQ2pLw7!", "pgpass-credential"],
    ['{"auths": {"registry.acme.io": {"auth": "' + b64("deploy:Xk9mQ2pLw7!") + '"}}}', "docker-registry-auth"],
    ['{"auths": {"acme.azurecr.io": {"identitytoken": "eyZq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1Qa"}}}', "secret-assignment"],
    ["curl -u deploy:Xk9mQ2pLw7! https://ci.acme.io", "user-password-pair"],
    ["curl -H 'X-Api-Key: Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6' https://api.acme.io", "secret-assignment"],
    ["Authorization: SSWS 00Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9", "authorization-header"],
    [`Authorization: ApiKey ${b64("id1:Zq7Lm2Xc9Vb4Nk8Rt5")}`, "authorization-header"],
    ["mysql -h db -u app -pXk9mQ2pLw7 app", "password-flag"],
    ["docker login registry.acme.io -u ci -p Xk9mQ2pLw7vB", "password-flag"],
    ["sshpass -p 'Xk9mQ2pLw7' ssh deploy@host", "password-flag"],
    ["PGPASSWORD=Xk9mQ2pLw7 psql -h db -U app", "secret-assignment"],
    ["DBPASSWORD=Xk9mQ2pLw7", "secret-assignment"],
    ["redis://:Xk9mQ2pLw7@cache.internal:6379/0", "url-password"],
    ["https://Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6@git.acme.io/repo.git", "url-password"],
    ["<password>Xk9mQ2pLw7!</password>", "secret-assignment"],
    ['<add key="SmtpPassword" value="Xk9mQ2pLw7!" />', "secret-assignment"],
    ["db:\n  password: |\n    Xk9mQ2pLw7vB", "secret-assignment"],
    ["The admin password for the console is Xk9mQ2pLw7! (ask Dana).", "secret-in-text"],
    ['storePassword "Xk9mQ2pLw7!"', "secret-assignment"],
    ["echo 3f9a8c1b2d4e6f708192a3b4c5d6e7f8 > config/master.key", "secret-assignment"]
  ]
  for (const [text, kind] of cases) {
    it(`${kind}: ${JSON.stringify(text).slice(0, 60)}`, () => {
      expect(kinds(text)).toEqual([kind])
    })
  }

  it("leaves their safe forms alone", () => {
    for (const text of [
      "machine api.github.com login $GITHUB_USER password $GITHUB_TOKEN",
      "*:5432:*:app:<see vault>",
      '{"auths": {"registry.acme.io": {}}, "credsStore": "desktop"}',
      'curl -u "$USER:$TOKEN" https://ci.acme.io',
      "mysql -h db -u app -p app",
      "docker run -p 8080:80 nginx",
      "docker login -u ci --password-stdin < token.txt",
      "redis://localhost:6379/0",
      "<password>${env.NEXUS_PASSWORD}</password>",
      "description: |\n  The token service issues short-lived credentials",
      "Passwords must be at least 12 characters; the password policy is in the wiki.",
      "10:02:11:44:55 is not a pgpass line",
      "ssh://git@github.com/acme/repo.git"
    ]) {
      expect(kinds(text), text).toEqual([])
    }
  })
})

describe("key material in other wrappings", () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `Qm9hcmQ${"x7Kp2Lm9Vb4Nc8Rt5Wy3Hd6Jp0Gs1QaZ".slice(i % 7)}${"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".repeat(2)}`.slice(0, 64)).join("\n")

  it("PEM with four dashes, SSH2, OpenVPN static keys, .NET RSA XML, a private JWK", () => {
    expect(kinds(`----BEGIN RSA PRIVATE KEY----\n${body(6)}\n----END RSA PRIVATE KEY----`)).toEqual(["rsa-private-key"])
    expect(kinds(`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "k"\n${body(6)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`)).toEqual(["ssh2-private-key"])
    const hex = Array.from({ length: 8 }, (_, i) => `${"0123456789abcdef".slice(i)}${"fedcba9876543210".repeat(2)}`.slice(0, 32)).join("\n")
    expect(kinds(`-----BEGIN OpenVPN Static key V1-----\n${hex}\n-----END OpenVPN Static key V1-----`)).toEqual(["openvpn-static-key"])
    expect(kinds(`<RSAKeyValue><Modulus>${"Zq7Lm2Xc9V".repeat(17)}=</Modulus><Exponent>AQAB</Exponent><P>${"Xc9VZq7Lm2".repeat(8)}==</P><D>${"Lm2Xc9VZq7".repeat(17)}=</D></RSAKeyValue>`)).toEqual(["rsa-private-key"])
    expect(kinds(`{"kty":"EC","crv":"P-256","x":"${"a".repeat(10)}","d":"Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9Mn2Bv4Cx"}`)).toEqual(["private-key-jwk"])
  })

  it("a key body without its armour lines, by its DER prefix, once per key", () => {
    expect(kinds(`MIIEpAIBAAKCAQEA${body(4)}`)).toEqual(["rsa-private-key"])
    expect(kinds(`MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\n${body(4)}`)).toEqual(["pkcs8-private-key"])
    expect(kinds(`-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${body(4)}\n-----END RSA PRIVATE KEY-----`)).toEqual(["rsa-private-key"])
    // A short run after the prefix is not a key body.
    expect(kinds("MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0")).toEqual([])
    // Public keys and certificates have other prefixes.
    expect(kinds(`MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${body(4)}`)).toEqual([])
  })

  it("a kubeconfig client-key-data (a base64-wrapped PEM key)", () => {
    const pem = `-----BEGIN EC PRIVATE KEY-----\n${body(3)}\n-----END EC PRIVATE KEY-----\n`
    const found = kinds(`users:\n- name: admin\n  user:\n    client-key-data: ${b64(pem)}`)
    expect(found).toContain("ec-private-key")
  })
})

describe("false positives the issue names", () => {
  const part = (o: object): string => Buffer.from(JSON.stringify(o)).toString("base64url")
  const unsigned = `${part({ alg: "none", typ: "JWT" })}.${part({ sub: "42", admin: true })}.`

  it("an unsigned (alg: none) JWT is not a credential, bare, in a header or under a secret name", () => {
    for (const text of [unsigned, `Authorization: Bearer ${unsigned}`, `token: ${unsigned}`, `The test uses the token ${unsigned} here.`]) {
      expect(kinds(text), text).toEqual([])
    }
    // Whatever follows the second dot of an alg-none token is not checked by anyone: still not a credential.
    expect(kinds(`${unsigned}Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9Mn2Bv4C`)).toEqual([])
    // Signed, it is.
    const signed = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub: "42", admin: true })}.Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9Mn2Bv4C`
    expect(kinds(signed)).toEqual(["jwt"])
  })

  it("a Twilio Account SID is an identifier; an API key SID is still named", () => {
    expect(kinds("TWILIO_ACCOUNT_SID=AC7adaf0c46d508c4a101d6b5143f3c817")).toEqual([])
    expect(kinds("API key SK14283a97a8020de99d5e2bbdee3d56ce")).toEqual(["twilio-credential"])
  })
})

describe("the refusal", () => {
  it("names the kind and where, asks to describe where the credential lives, and holds no part of the value", () => {
    const evasive = `# Deploy\n\nci: ${token.slice(0, 8)}\u200b${token.slice(8)}\nblob: ${b64(`NPM_TOKEN=npm_${"Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9M"}`)}\n`
    const reason = secretRefusalReason(detectSecrets(evasive), "deploy.md")
    expect(reason).toContain("a GitHub token at line 3")
    expect(reason).toContain("an npm token at line 4")
    expect(reason).toContain("describe where the credential lives instead of its value")
    for (let i = 0; i + 8 <= token.length; i++) expect(reason).not.toContain(token.slice(i + 4, i + 12))
    expect(reason).not.toContain("Zq7Lm2Xc")
  })
})

describe("linear time on the new wrappings", () => {
  it("runs through 1 MiB adversarial inputs aimed at the normaliser, the decoders and the tool-shape rules", () => {
    const MiB = 1 << 20
    const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB)
    const inputs = [
      fill("\u200b"),
      fill("\u0430"),
      fill("\uff41"),
      fill("Ab12cd34\n"),
      fill("\\\n"),
      fill("%41"),
      fill("QUFB"),
      fill("machine a "),
      fill("a:1:b:c:"),
      fill("<password>"),
      fill("-p "),
      fill("curl -u a:"),
      fill("password is "),
      fill("\"d\":\"")
    ]
    for (const input of inputs) expect(detectSecrets(input), JSON.stringify(input.slice(0, 20))).toEqual([])
    // A megabyte of base64 that starts like an RSA key body is one key body, found once.
    expect(kinds(fill("MIIEpAIBAAKCAQEA"))).toEqual(["rsa-private-key"])
  })
})
