import { describe, expect, it } from "vitest"
import { detectSecrets, SECRET_PATTERNS, secretRefusalReason } from "../../src/safety/secrets.ts"
import { secretKindLabel, type SecretKind } from "../../src/safety/secrets/kinds.ts"
import { secretNameStrength } from "../../src/safety/secrets/names.ts"
import { isPlaceholder, looksLikeSecretValue, shannonEntropy } from "../../src/safety/secrets/values.ts"
import { cleanSamples, credentialSamples } from "./corpus.ts"

const kinds = (text: string): ReadonlyArray<SecretKind> => detectSecrets(text).map((f) => f.kind)

/** Every kind the detector can name. */
const ALL_KINDS = Object.keys(secretKindLabel) as ReadonlyArray<SecretKind>

describe("the corpus", () => {
  const credentials = credentialSamples()
  const clean = cleanSamples()

  it("holds at least 60 credentials covering every kind, and at least 100 clean texts", () => {
    expect(credentials.length).toBeGreaterThanOrEqual(60)
    expect(new Set(credentials.map((c) => c.kind))).toEqual(new Set(ALL_KINDS))
    expect(clean.length).toBeGreaterThanOrEqual(100)
  })

  it("catches every credential, under its own kind", () => {
    const missed = credentials.filter((c) => !kinds(c.text).includes(c.kind)).map((c) => c.kind)
    expect(missed).toEqual([])
  })

  it("flags at most 2 % of the clean texts (exactly 0 of them today)", () => {
    const flagged = clean.filter((t) => detectSecrets(t).length > 0)
    expect(flagged.length / clean.length).toBeLessThanOrEqual(0.02)
    expect(flagged).toEqual([])
  })

  it("still catches a credential when it sits in the middle of a clean note", () => {
    const note = clean[0]!
    for (const c of credentials) {
      const findings = detectSecrets(`${note}\n\n${c.text}\n\n${note}`)
      expect(findings.map((f) => f.kind)).toContain(c.kind)
      const at = findings.find((f) => f.kind === c.kind)!
      expect(at.line).toBeGreaterThan(note.split("\n").length + 1)
    }
  })
})

describe("detectSecrets", () => {
  it("reports 1-based line and column of the token, and only kind, line and column", () => {
    const text = "first line\r\n  token is ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz\nlast"
    const findings = detectSecrets(text)
    expect(findings).toEqual([{ kind: "github-token", line: 2, column: 12 }])
    expect(Object.keys(findings[0]!).sort()).toEqual(["column", "kind", "line"])
  })

  it("names a secret-named setting once, by its specific kind when the value has a known format", () => {
    expect(detectSecrets("GITHUB_TOKEN=ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz")).toEqual([
      { kind: "github-token", line: 1, column: 14 }
    ])
    expect(kinds("DB_PASSWORD=Xk9mQ2pLw7")).toEqual(["secret-assignment"])
  })

  it("finds several secrets in order", () => {
    const text = ["AWS key AKIAQ3EGRT5MZ7XJ2KPL", "", "password: Vw8#kL2mQp", "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1WxY"].join("\n")
    expect(detectSecrets(text).map((f) => [f.kind, f.line])).toEqual([
      ["aws-access-key-id", 1],
      ["secret-assignment", 3],
      ["npm-token", 4]
    ])
  })

  it("needs key material after a private-key header: prose naming the header is not a key", () => {
    expect(kinds("Keys start with -----BEGIN RSA PRIVATE KEY----- and end with the END line.")).toEqual([])
    expect(kinds("-----BEGIN PRIVATE KEY-----\n<base64 here>\n-----END PRIVATE KEY-----")).toEqual([])
    expect(kinds(`-----BEGIN PRIVATE KEY-----\n${"Qm9hcmQ".repeat(10)}\n-----END PRIVATE KEY-----`)).toEqual(["pkcs8-private-key"])
  })

  it("leaves public keys, certificates, digests, hashes, SHAs and UUIDs alone", () => {
    for (const text of [
      `-----BEGIN PUBLIC KEY-----\n${"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1L".repeat(2)}\n-----END PUBLIC KEY-----`,
      `-----BEGIN CERTIFICATE-----\n${"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa".repeat(2)}\n-----END CERTIFICATE-----`,
      "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7x9kL2mQp8Vw3Yz6Bn1Cd5Fg7Hj9Km2Np4Qr6St8 me@host",
      "image@sha256:5c3f8d9a1b2e4f6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
      "integrity sha512-X9bF3kQ2z7Vd1mLp8rT6yH0wN5cJ4aE2gS7uK1iO3qW9eR5tY8uI0oP2aS4dF6gH8jK0lZ2xC4vB6nM8qW==",
      "9e107d9d372bb6826bd81d3542a419d6 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "3fa85f64-5717-4562-b3fc-2c963f66afa6",
      "key: 6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
      "key: 3fa85f64-5717-4562-b3fc-2c963f66afa6"
    ]) {
      expect(kinds(text), text).toEqual([])
    }
  })

  it("leaves placeholders and documented example keys alone", () => {
    for (const text of [
      "OPENAI_API_KEY=sk-...",
      "OPENAI_API_KEY=<your-token>",
      "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "TOKEN=${TOKEN}",
      "TOKEN=$TOKEN",
      "password: changeme",
      "password: {{ vault_db_password }}",
      "SESSION_SECRET=<redacted>",
      "AKIAIOSFODNN7EXAMPLE",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
      "Authorization: Bearer <token>",
      "postgres://user:password@localhost/db",
      "postgres://postgres:postgres@localhost/db"
    ]) {
      expect(kinds(text), text).toEqual([])
    }
  })

  it("leaves prose about secrets alone", () => {
    for (const text of [
      "Never paste a password into memory; keep it in the vault.",
      "Password: see the team vault.",
      "The token: rotated every 90 days by the platform team.",
      "GitHub tokens start with ghp_ and Stripe live keys with sk_live_.",
      "Set OPENAI_API_KEY in your shell before running the evals."
    ]) {
      expect(kinds(text), text).toEqual([])
    }
  })

  it("catches a secret-named setting in .env, YAML, JSON, Markdown, code and flags", () => {
    for (const text of [
      "DB_PASSWORD=Xk9mQ2pLw7",
      "export API_TOKEN='q8Zr2Lm5Nx7Vb3Kc'",
      "  password: \"Hn4&kW9z!Q\"",
      '{"apiKey":"Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6"}',
      "- **Staging admin password**: Ts7!pRw2Qx",
      "const clientSecret = 'Rm3Kq8Zx2Lv7Nc5W'",
      "mysql --password=Pq7Lm2Xc9V db",
      "encryption_key: 3fQ9kLm2Xc7Vb4Nk8Rt5Wy1Hd6Jp0Gs=",
      "key = Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6"
    ]) {
      expect(kinds(text), text).toEqual(["secret-assignment"])
    }
  })

  it("tells a secret-named setting from a setting about secrets", () => {
    expect(secretNameStrength("DB_PASSWORD")).toBe("strong")
    expect(secretNameStrength("apiKey")).toBe("strong")
    expect(secretNameStrength("SECRET_KEY_BASE")).toBe("strong")
    expect(secretNameStrength("Staging admin password")).toBe("strong")
    expect(secretNameStrength("password2")).toBe("strong")
    expect(secretNameStrength("key")).toBe("weak")
    expect(secretNameStrength("widget_key")).toBe("weak")
    for (const name of ["public_key", "cache_key", "s3_key", "max_tokens", "token_url", "password_file", "secret_name", "key_id", "tokenizer"]) {
      expect(secretNameStrength(name), name).toBe("none")
    }
  })

  it("judges values: short, wordy, referenced or structured values are not secrets", () => {
    expect(looksLikeSecretValue("Xk9mQ2pLw7", "strong")).toBe(true)
    expect(looksLikeSecretValue("Xk9mQ2p", "strong")).toBe(false) // 7 characters
    expect(looksLikeSecretValue("Xk9mQ2pL", "strong")).toBe(true) // 8 characters
    for (const v of ["true", "null", "keychain", "process.env.TOKEN", "os.getenv(\"X\")", "GITHUB_TOKEN", "./secrets/token.txt", "2024-06-11", "12345678", "v2.14.0"]) {
      expect(looksLikeSecretValue(v, "strong"), v).toBe(false)
    }
    expect(looksLikeSecretValue("Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6", "weak")).toBe(true)
    expect(looksLikeSecretValue("Zq7Lm2Xc9Vb4Nk8Rt5W", "weak")).toBe(false) // 19 characters
    expect(looksLikeSecretValue("Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6", "none")).toBe(false)
  })

  it("treats stand-ins as placeholders", () => {
    for (const v of ["xxxxxxxx", "YOUR_KEY_HERE", "<token>", "${X}", "sk-...", "00000000000000000000", "AKIAIOSFODNN7EXAMPLE"]) {
      expect(isPlaceholder(v), v).toBe(true)
    }
    expect(isPlaceholder("Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6")).toBe(false)
  })

  it("returns nothing for empty text", () => {
    expect(detectSecrets("")).toEqual([])
  })
})

describe("secretRefusalReason", () => {
  const token = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"

  it("names the kind, the line and the file, tells what to do, and never holds the value", () => {
    const reason = secretRefusalReason(detectSecrets(`# Notes\n\nci: ${token}\n`), "deploy.md")
    expect(reason).toContain("deploy.md")
    expect(reason).toContain("a GitHub token at line 3")
    expect(reason).toContain("remove or redact it")
    expect(reason).toContain("retry")
    expect(reason).not.toContain(token)
    expect(reason).not.toContain("Ab1Cd2")
  })

  it("lists several findings and counts those past five", () => {
    const text = Array.from({ length: 7 }, (_, i) => `line ${i}: AKIAQ3EGRT5MZ7XJ2KP${"ABCDEFG"[i]}`).join("\n")
    const reason = secretRefusalReason(detectSecrets(text), "aws.md")
    expect(reason).toContain("an AWS access key ID at line 1, ")
    expect(reason).toContain("and an AWS access key ID at line 5, and 2 more")
    expect(reason).toContain("remove or redact them")
  })
})

/** Quantifiers in a pattern source outside character classes and escapes: each must have an upper bound. */
const unboundedQuantifiers = (source: string): Array<string> => {
  const found: Array<string> = []
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!
    if (ch === "\\") {
      i++
      continue
    }
    if (inClass) {
      if (ch === "]") inClass = false
      continue
    }
    if (ch === "[") inClass = true
    else if (ch === "*" || ch === "+") found.push(`${ch} at ${i}`)
    else if (ch === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))
      if (m !== null && m[2] !== undefined && m[3] === "") found.push(`${m[0]} at ${i}`)
    }
  }
  return found
}

describe("linear time", () => {
  it("every pattern uses bounded quantifiers only", () => {
    expect(SECRET_PATTERNS.length).toBeGreaterThan(20)
    for (const p of SECRET_PATTERNS) expect(unboundedQuantifiers(p.source), p.source).toEqual([])
    // The checker itself sees an unbounded quantifier.
    expect(unboundedQuantifiers("a+b*c{2,}[+*]\\+d{1,3}")).toEqual(["+ at 1", "* at 3", "{2,} at 5"])
  })

  it("every pattern whose first atom repeats starts behind a lookbehind or at a line start", () => {
    for (const p of SECRET_PATTERNS) {
      const s = p.source
      const firstAtomRepeats = /^(?:\[[^\]]*\]|\\.|\(\?:[^)]*\))[*+?{]/.test(s)
      expect(firstAtomRepeats && !s.startsWith("(?<!") && !s.startsWith("^"), s).toBe(false)
    }
  })

  it("runs through 1 MiB adversarial inputs and still finds what is there", () => {
    const MiB = 1 << 20
    const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB)
    const inputs = [
      fill("a"),
      fill("ghp_"),
      fill("eyJ"),
      fill("eyJhbGciOi."),
      fill("a="),
      fill("password: "),
      fill("x://"),
      fill("a://b:c"),
      fill("-----BEGIN PRIVATE KEY-----"),
      fill("PuTTY-User-Key-File-2: ssh-rsa\n"),
      fill("\"a\":"),
      fill("--token "),
      fill("Authorization: Bearer "),
      fill("&sig="),
      fill("sk-"),
      fill("A".repeat(63) + "=\n")
    ]
    for (const input of inputs) expect(detectSecrets(input), input.slice(0, 40)).toEqual([])
    const needle = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"
    expect(kinds(`${fill("a://b:c")}\n${needle}`)).toEqual(["github-token"])
  })
})

describe("the value heuristics' entropy", () => {
  /** Shannon entropy as first written: code points counted in a map, divided by the length in UTF-16 units. */
  const reference = (s: string): number => {
    const counts = new Map<string, number>()
    for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    let h = 0
    for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length)
    return h
  }

  it("is the same to the last bit, for ASCII, Latin-1, wider letters and surrogate pairs, and one call never leaks into the next", () => {
    const samples = ["", "a", "aaaa", "Xk9mQ2pLw7!Xk9", "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz", "café ÿþ", "\u0430\u0431c", "a\u{1d400}b\u{1d400}", "\ud800x"]
    let seed = 7
    for (let i = 0; i < 200; i++) {
      let s = ""
      for (let k = 0; k < i % 40; k++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        s += String.fromCharCode([32 + (seed % 95), 160 + (seed % 96), 0x400 + (seed % 64)][i % 3]!)
      }
      samples.push(s)
    }
    for (const s of samples) expect(shannonEntropy(s), JSON.stringify(s)).toBe(reference(s))
  })
})
