/**
 * Secret-named settings: does a setting's name (`DB_PASSWORD`, `apiKey`, `secret_id`, a bare `key`) say it holds a
 * secret, strongly or weakly? Pure; judges the name only, never the value (values.ts does), and caches verdicts in a
 * bounded map because the same names recur in every note.
 */

/** Final name segments that make a setting a secret on their own. */
const STRONG_TAILS: ReadonlySet<string> = new Set([
  "secret", "password", "passwd", "pwd", "pw", "passphrase", "pass", "token", "apikey", "secretkey", "accesskey",
  "privatekey", "authtoken", "accesstoken", "refreshtoken", "clientsecret", "credential", "credentials", "creds",
  "auth", "authkey", "pat", "licensekey", "masterkey", "privkey", "passcode"
])

/** Words a name may end with when written without separators (DBPASSWORD, identitytoken, SMTPPASS). */
const STRONG_SUFFIXES: ReadonlyArray<string> = [
  "password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey", "accesskey", "privatekey", "authkey"
]
/** Words ending in "pass" that are not passwords. */
const PASS_WORDS: ReadonlySet<string> = new Set(["bypass", "compass", "surpass", "overpass", "underpass", "trespass", "encompass", "multipass", "firstpass", "onepass"])

const strongWord = (seg: string): boolean => {
  if (STRONG_TAILS.has(seg)) return true
  for (const suffix of STRONG_SUFFIXES) if (seg.length > suffix.length && seg.endsWith(suffix)) return true
  return seg.length > 4 && seg.length <= 12 && seg.endsWith("pass") && !PASS_WORDS.has(seg)
}

/** Qualifiers that make `..._key` a secret (api_key, private_key, signing_key). */
const SECRET_KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "api", "secret", "access", "private", "signing", "encryption", "master", "license", "client", "app", "auth",
  "service", "account", "admin", "webhook", "session", "shared", "storage", "crypt", "hmac", "jwt", "sign", "aes",
  "cipher", "kek", "dek", "root", "seed", "wallet", "sops", "wrapping", "symmetric", "decryption", "auth", "hec"
])

/** Qualifiers that make `..._key` an identifier, not a secret (cache_key, public_key). */
const NON_SECRET_KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "public", "pub", "cache", "sort", "partition", "primary", "foreign", "hash", "range", "idempotency", "lookup",
  "map", "object", "s3", "i18n", "translation", "react", "unique", "composite", "shortcut", "hot", "dedup", "dedupe",
  "group", "routing", "row", "column", "field", "index", "dict", "host", "ssh", "gpg", "pgp", "deploy", "registry"
])

/** Final segments that make a name a secret's metadata, not the secret itself (secret_name, token_url). */
const TRAILING_VALUE_SEGMENTS: ReadonlySet<string> = new Set(["base", "value", "b64", "base64", "hex", "raw", "plain", "plaintext", "data"])

export type NameStrength = "strong" | "weak" | "none"

const nameSegments = (name: string): Array<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    // password2 -> password, but s3 stays s3.
    .map((s) => (s.length > 4 ? s.replace(/\d+$/, "") : s))
    .filter((s) => s !== "")

const strengthCache = new Map<string, NameStrength>()

/** Does a setting's name say it holds a secret? "weak" for a bare or unqualified `key`. */
export const secretNameStrength = (name: string): NameStrength => {
  const cached = strengthCache.get(name)
  if (cached !== undefined) return cached
  const strength = nameStrength(name)
  // Names repeat (the same settings in every note); the cache is bounded so odd input cannot grow it without end.
  if (strengthCache.size >= 4096) strengthCache.clear()
  strengthCache.set(name, strength)
  return strength
}

const nameStrength = (name: string): NameStrength => {
  const segs = nameSegments(name)
  if (segs.length === 0 || segs.length > 8) return "none"
  if (segs.some((s) => s === "public" || s === "pub")) return "none"
  let i = segs.length - 1
  if (TRAILING_VALUE_SEGMENTS.has(segs[i]!) && i > 0) i--
  const tail = segs[i]!
  if (strongWord(tail)) return "strong"
  const qualifier = i > 0 ? segs[i - 1]! : undefined
  // An AppRole secret_id is the secret half of a login.
  if (tail === "id" && qualifier === "secret") return "strong"
  if (tail === "key") {
    if (qualifier === undefined) return "weak"
    if (NON_SECRET_KEY_QUALIFIERS.has(qualifier)) return "none"
    if (SECRET_KEY_QUALIFIERS.has(qualifier) || strongWord(qualifier)) return "strong"
    return "weak"
  }
  return "none"
}
