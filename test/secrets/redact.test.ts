/**
 * Redaction of what a background model is shown (src/safety/redact.ts): each secret becomes one marker naming its
 * kind, overlapping findings become one marker, and every other character stays as it was, multi-byte text included.
 */
import { describe, expect, it } from "vitest"
import { redactionMarker, redactionNotice, redactSecrets } from "../../src/safety/redact.ts"
import { detectSecrets } from "../../src/safety/secrets.ts"
import { type SecretKind, secretKindLabel } from "../../src/safety/secrets/kinds.ts"
import { githubToken, privateKeyBlock } from "../trust/fakeSecrets.ts"
import { cleanSamples, credentialSamples } from "./corpus.ts"
import { generatedCredentials } from "./generatedCorpus.ts"

/** No lone surrogate: the text survives a round trip through UTF-8. */
const wellFormed = (s: string): boolean => Buffer.from(s, "utf8").toString("utf8") === s

const ALL_KINDS = Object.keys(secretKindLabel) as ReadonlyArray<SecretKind>

describe("the marker", () => {
  it("names the kind without an article, in one form for every kind, and is no secret itself", () => {
    expect(redactionMarker("github-token")).toBe("[redacted: GitHub token]")
    expect(redactionMarker("openssh-private-key")).toBe("[redacted: OpenSSH private key]")
    for (const kind of ALL_KINDS) {
      const marker = redactionMarker(kind)
      expect(marker).toMatch(/^\[redacted: (?!an? )[^\]]+\]$/)
      expect(detectSecrets(`token: ${marker}\n${marker}`)).toEqual([])
    }
  })

  it("the notice counts what was replaced and forbids saving it", () => {
    expect(redactionNotice(1)).toMatch(/^\[1 credential-looking value was replaced .*never save a credential to memory/)
    expect(redactionNotice(3)).toMatch(/^\[3 credential-looking values were replaced/)
    expect(redactionNotice(3)).not.toContain("\n")
  })
})

describe("redactSecrets", () => {
  it("text with nothing to redact comes back as the same string", () => {
    const text = "## Deploys\nRun `npm run deploy` after the tests pass; the token is in the CI secrets.\n"
    const r = redactSecrets(text)
    expect(r.text).toBe(text)
    expect(r).toEqual({ text, count: 0, kinds: [] })
    for (const clean of cleanSamples()) expect(redactSecrets(clean).text).toBe(clean)
  })

  it("one token: replaced by its marker, the text around it unchanged", () => {
    const token = githubToken()
    const r = redactSecrets(`push with ${token} then stop`)
    expect(r).toEqual({ text: "push with [redacted: GitHub token] then stop", count: 1, kinds: ["github-token"] })
  })

  it("several findings of several kinds: one marker each, in order of position", () => {
    const [a, b] = [githubToken(), githubToken()]
    const key = privateKeyBlock()
    const r = redactSecrets(`first ${a}\n\n${key}\n\nsecond ${b}\n`)
    expect(r.count).toBe(3)
    expect(r.kinds).toEqual(["github-token", "openssh-private-key", "github-token"])
    expect(r.text).toBe("first [redacted: GitHub token]\n\n[redacted: OpenSSH private key]\n\nsecond [redacted: GitHub token]\n")
  })

  it("overlapping findings (a token under a secret-named setting) become one marker named by the specific kind", () => {
    const token = githubToken()
    // The detector has two stretches here: the whole setting (generic) and the token inside it. The name stays.
    expect(redactSecrets(`  export GITHUB_TOKEN=${token} # for CI\n`))
      .toEqual({ text: "  export GITHUB_TOKEN=[redacted: GitHub token] # for CI\n", count: 1, kinds: ["github-token"] })
    expect(redactSecrets(`the bot's token is ${token}.`).text).toBe("the bot's token is [redacted: GitHub token].")
    // A URL's password: the generic span runs on to the `@`, which is punctuation and stays.
    expect(redactSecrets(`git push https://x:${token}@github.com/acme/app main`).text)
      .toBe("git push https://x:[redacted: GitHub token]@github.com/acme/app main")
    // A setting whose value holds more than the token: the marker runs to the end of the value.
    expect(redactSecrets(`TOKEN="${token}:s3cretTail99" next`).text).toBe("TOKEN=\"[redacted: GitHub token] next")
    // A token inside a base64 run: the decoded run covers the whole run, the marker covers it once.
    const encoded = Buffer.from(`token=${token}`).toString("base64")
    const r = redactSecrets(`blob ${encoded} end`)
    expect(r.count).toBe(1)
    expect(r.text).toMatch(/^blob \[redacted: [^\]]+\] end$/)
  })

  it("every character outside the secrets stays byte for byte, multi-byte UTF-8 included", () => {
    const token = githubToken()
    const key = privateKeyBlock()
    const before = "Ünïcödé 日本語のテキスト 🔑🚀 — «quotes» ½\n"
    const middle = " 中文 ∑ 🧪 "
    const after = "\n末尾 ✓ ñ 😀"
    const r = redactSecrets(`${before}${token}${middle}${key}${after}`)
    const expected = `${before}[redacted: GitHub token]${middle}[redacted: OpenSSH private key]${after}`
    expect(r.text).toBe(expected)
    expect(Buffer.from(r.text, "utf8").equals(Buffer.from(expected, "utf8"))).toBe(true)
    expect(wellFormed(r.text)).toBe(true)
  })

  it("a finding whose bounded match ends inside a surrogate pair takes the whole character: the rest stays well-formed", () => {
    // The .netrc rule takes at most 256 UTF-16 units of password: the 256th here is the first half of an emoji.
    const text = `machine h.example login u password ${"aB3x".repeat(63)}zzz\u{1F600} tail`
    const r = redactSecrets(text)
    expect(r.text).toBe("[redacted: .netrc password] tail")
    expect(wellFormed(r.text)).toBe(true)
  })

  it("a key is redacted to its END line, or through its body lines when the text was cut before it", () => {
    const key = privateKeyBlock()
    expect(redactSecrets(`a\n${key}\nb`).text).toBe("a\n[redacted: OpenSSH private key]\nb")
    const cut = key.split("\n").slice(0, 4).join("\n")
    expect(redactSecrets(`a\n${cut}\n(output truncated)`).text).toBe("a\n[redacted: OpenSSH private key]\n(output truncated)")
    // In a diff, added and removed (a removed armour line starts with six dashes).
    for (const sign of ["+", "-"]) {
      const diff = `@@ -1,9 +0,0 @@\n${key.split("\n").map((l) => sign + l).join("\n")}\ndiff --git a/x b/x\n`
      expect(redactSecrets(diff).text).toBe(`@@ -1,9 +0,0 @@\n${sign === "+" ? "+" : ""}[redacted: OpenSSH private key]\ndiff --git a/x b/x\n`)
    }
    // In a JSON string, with its line breaks escaped.
    const json = JSON.stringify({ private_key: `${key}\n`, note: "kept" })
    expect(redactSecrets(json).text).toBe(`{"private_key":"[redacted: OpenSSH private key]\\n","note":"kept"}`)
  })

  it("every credential of the corpus is redacted: no finding is left, and no line of a key body either", () => {
    for (const c of credentialSamples()) {
      const r = redactSecrets(c.text)
      expect(r.count, c.kind).toBeGreaterThan(0)
      // Each marker names a kind the detector reported (of overlapping ones, the first specific one).
      const detected = new Set(detectSecrets(c.text).map((f) => f.kind))
      for (const kind of r.kinds) expect(detected.has(kind), c.text).toBe(true)
      expect(detectSecrets(r.text), c.text).toEqual([])
      // What is left holds no run of 40 mixed token characters (a line of a key body, a long token); a JWK's public
      // coordinates (x, y) are no secret and stay.
      if (c.kind === "private-key-jwk") continue
      const runs = (r.text.match(/[A-Za-z0-9+/=_-]{40,}/g) ?? []).filter((w) => /[0-9]/.test(w) && /[a-z]/.test(w) && /[A-Z]/.test(w))
      expect(runs, `${c.text}\n=>\n${r.text}`).toEqual([])
    }
  })

  it("every caught credential of the generated corpus, evasions included (invisible characters, splits, encodings), leaves nothing behind", () => {
    let checked = 0
    for (const c of generatedCredentials()) {
      if (detectSecrets(c.text).length === 0) continue
      checked++
      const r = redactSecrets(c.text)
      expect(detectSecrets(r.text), `${c.format} (${c.evasion})`).toEqual([])
      if (c.format === "jwk-private") continue
      const runs = (r.text.match(/[A-Za-z0-9+/=_-]{40,}/g) ?? []).filter((w) => /[0-9]/.test(w) && /[a-z]/.test(w) && /[A-Z]/.test(w))
      expect(runs, `${c.format} (${c.evasion}): ${r.text}`).toEqual([])
    }
    expect(checked).toBeGreaterThan(500)
  })
})
