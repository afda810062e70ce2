/**
 * Value heuristics of the credential detector: is a string random enough to be a secret, or a stand-in, a word, a
 * reference, a digest, code? Pure functions of the value alone; they never look at the text around it (the rules
 * do) and never see the setting's name except as its strength (names.ts judges names).
 */
import type { NameStrength } from "./names.ts"

/** Counts of each character below 256 (most values are ASCII), and the order they were first seen in. */
const smallCounts = new Uint32Array(256)
const firstSeen = new Uint8Array(256)

/** Shannon entropy over code points, summed in the order each was first seen: the general case. */
const entropyOfCodePoints = (s: string): number => {
  const counts = new Map<string, number>()
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

/**
 * Shannon entropy in bits per character (code points counted, divided by the length in UTF-16 units). A value of
 * characters below 256, nearly every one, is counted in a table without allocating, summed in the same order as the
 * general case, so the figure is the same to the last bit; the scan calls this for every candidate value.
 */
export const shannonEntropy = (s: string): number => {
  if (s.length === 0) return 0
  let distinct = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 256) {
      for (let k = 0; k < distinct; k++) smallCounts[firstSeen[k]!] = 0
      return entropyOfCodePoints(s)
    }
    if (smallCounts[c] === 0) firstSeen[distinct++] = c
    smallCounts[c]! += 1
  }
  let h = 0
  for (let k = 0; k < distinct; k++) {
    const c = firstSeen[k]!
    const p = smallCounts[c]! / s.length
    smallCounts[c] = 0
    h -= p * Math.log2(p)
  }
  return h
}

export const charClasses = (s: string): number =>
  (/[a-z]/.test(s) ? 1 : 0) + (/[A-Z]/.test(s) ? 1 : 0) + (/[0-9]/.test(s) ? 1 : 0) + (/[^A-Za-z0-9]/.test(s) ? 1 : 0)

/** Does `s` hold at least `k` distinct characters (k <= 8)? Stops as soon as it has seen them. */
export const hasDistinct = (s: string, k: number): boolean => {
  const seen: Array<number> = []
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (!seen.includes(c)) {
      seen.push(c)
      if (seen.length >= k) return true
    }
  }
  return false
}

/** Markers of a stand-in rather than a value: documentation, templates, redactions. */
const PLACEHOLDER_MARKERS = [
  "example",
  "sample",
  "placeholder",
  "changeme",
  "change_me",
  "change-me",
  "dummy",
  "redacted",
  "your",
  "xxxx",
  "****",
  "...",
  "…",
  "<",
  ">",
  "${",
  "{{",
  "$(",
  "replace",
  "insert",
  "todo",
  "fixme",
  "notreal",
  "not-real",
  "not_real",
  "fake",
  "123456789",
  "abcdefghij"
]

/** Values published in vendor documentation as examples; matching them is not a leak. */
const DOCUMENTED_EXAMPLES: ReadonlySet<string> = new Set([
  // AWS documentation key pair.
  "AKIAIOSFODNN7EXAMPLE",
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  // The Azure storage emulator's well-known account key.
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
  // GitHub's documentation token.
  "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
  // The jwt.io introduction token's signature.
  "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
])

/** Any of the markers, in one pattern: one pass over a value instead of one per marker. */
const PLACEHOLDER_MARKER = new RegExp(PLACEHOLDER_MARKERS.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"))

export const isPlaceholder = (value: string): boolean => {
  if (DOCUMENTED_EXAMPLES.has(value)) return true
  if (PLACEHOLDER_MARKER.test(value.toLowerCase())) return true
  // A token made of very few distinct characters (aaaa, 0000, xXxX) is a stand-in.
  return value.length >= 8 && !hasDistinct(value, 5)
}

const HEX_HASH = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** Words that stand for "no value here" or name where the value lives. */
const NON_VALUES: ReadonlySet<string> = new Set([
  "true", "false", "null", "none", "nil", "undefined", "required", "optional", "yes", "no", "on", "off", "empty",
  "string", "str", "int", "bool", "secret", "password", "token", "hidden", "masked", "omitted", "unset", "env",
  "vault", "keychain", "keyring", "1password", "bitwarden", "lastpass", "n/a", "na", "tbd", "auto", "default"
])

/** A part of a dotted value that is random rather than a word: long, with letters and digits. */
const randomPart = (part: string): boolean => part.length >= 12 && /[0-9]/.test(part) && /[A-Za-z]/.test(part)

/** Is `value` (already unquoted) something that could be a real secret rather than a reference or a word? */
export const plausibleValue = (value: string): boolean => {
  if (value.length === 0 || value.length > 512) return false
  if (NON_VALUES.has(value.toLowerCase())) return false
  if (isPlaceholder(value)) return false
  // An unsigned JWT grants nothing; a documented one is an example.
  if (value.startsWith("eyJ") && (unsignedJwt(value) || isPlaceholder(value.slice(value.lastIndexOf(".") + 1)))) return false
  // References: variables, YAML anchors and tags, templating, file and URL references.
  if (/^[$%&*!@]/.test(value) || /^-{1,2}[A-Za-z]/.test(value)) return false
  if (/^(?:\.{0,2}\/|~\/)/.test(value) || value.includes("://")) return false
  if (/\.(?:pem|key|json|txt|env|ya?ml|toml|crt|cer|p12|pfx|gpg|asc|ini|conf|cfg)$/i.test(value)) return false
  // Code: a call or index expression, a dotted identifier, an ALL_CAPS environment variable name.
  if (/^[A-Za-z_][\w.]{0,200}[[(]/.test(value)) return false
  // A dotted identifier (process.env.TOKEN), unless one of its parts is random (a Vault `s.` token).
  if (/^[A-Za-z_]\w{0,100}(?:\.[A-Za-z_]\w{0,100}){1,10}$/.test(value) && !value.split(".").some(randomPart)) return false
  // An ALL_CAPS name (GITHUB_TOKEN); a long run of capitals and digits without `_` is a base32 key, not a name.
  if (/^[A-Z][A-Z0-9_]{0,100}$/.test(value) && (value.includes("_") || !/[0-9]/.test(value) || value.length < 12)) return false
  // Plain lowercase words, numbers, dates and versions.
  if (/^[a-z][a-z_-]{0,200}:?$/.test(value) || /^[A-Za-z][\w-]{0,200}:$/.test(value)) return false
  if (/^\d{1,200}$/.test(value)) return false
  if (/^\d{4}-\d{2}-\d{2}/.test(value) || /^v?\d{1,4}(?:\.\d{1,6}){1,3}/.test(value)) return false
  // Digests, integrity strings and public keys are not secrets.
  if (/^(?:sha\d{1,3}|md5|blake2b?)[:-]/i.test(value)) return false
  if (/^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-|sk-ssh-|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|RSA PUBLIC))/.test(value)) return false
  return true
}

/** Does `value` look like a secret for a setting of this name strength? */
export const looksLikeSecretValue = (value: string, strength: NameStrength): boolean => {
  if (strength === "none" || !plausibleValue(value)) return false
  if (/\s/.test(value)) return false
  if (strength === "strong") {
    if (value.length < 8) return false
    if (!hasDistinct(value, 5)) return false
    // One letter case only, no digits: a word, unless long and as varied as random letters are.
    if (charClasses(value) === 1) return value.length >= 24 && shannonEntropy(value) >= 3.5
    return shannonEntropy(value) >= 2.5
  }
  // Weak names (a bare `key`): only long, random-looking, token-charset values that are not digests or ids.
  if (value.length < 20 || !/^[A-Za-z0-9+/=_.-]+$/.test(value)) return false
  if (HEX_HASH.test(value) || UUID.test(value)) return false
  // A path or file name (uploads/2024/report.pdf), not a key.
  if (/\.[a-z]{2,5}$/.test(value) || /^[\w-]{1,64}(?:\/[\w.-]{1,64}){2,20}$/.test(value)) return false
  return /[0-9]/.test(value) && /[A-Za-z]/.test(value) && shannonEntropy(value) >= 3.5
}

/**
 * A value stated without a `=` or `:` a parser would read (prose, `.netrc`, command lines): it must look random,
 * not like a word, a path or code.
 */
export const strictSecretValue = (raw: string): boolean => {
  const value = raw.replace(/[.,;:!?)\]}>]{1,4}$/, "")
  if (value.length < 8 || !looksLikeSecretValue(value, "strong")) return false
  // A JWT is the JWT rule's to judge (it knows unsigned and documented ones); `pk` keys are publishable.
  if (/^[\d:.,/-]{1,512}$/.test(value) || value.startsWith("eyJ") || /^pk[._]/.test(value)) return false
  const classes = charClasses(value)
  return classes >= 3 || (classes === 2 && value.length >= 16 && /[0-9]/.test(value) && shannonEntropy(value) >= 3.3)
}

/** A JWT whose header says `alg: none` carries no signature: it grants nothing and is not a secret. */
export const unsignedJwt = (token: string): boolean => {
  const dot = token.indexOf(".")
  if (!token.startsWith("eyJ") || dot < 0) return false
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, dot), "base64url").toString("utf8")) as { alg?: unknown }
    return typeof header.alg === "string" && header.alg.toLowerCase() === "none"
  } catch {
    return false
  }
}
