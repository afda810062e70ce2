import { PROVIDER_RULES, type ProviderKind, type ProviderRule } from "./secretProviders.ts"
import { characterView, decodedRuns, joinedView, percentView, TEXT_PATTERNS } from "./secretText.ts"

/**
 * The credential detector: finds what looks like a secret in text bound for memory (background writes, the main
 * agent's writes into the memory directory, `pm lint`). Pure, no I/O. A finding names the kind and where it starts,
 * never the value, so no caller can leak it into a message, a log or a model's context.
 *
 * Linear time: every pattern uses bounded quantifiers only, and every unanchored pattern starts behind a negative
 * lookbehind of its own character class, so a match attempt begins only at the start of a run and a failed attempt
 * costs at most its bound. `SECRET_PATTERNS` exposes the sources so a test can check that.
 *
 * Three kinds of rule: provider token formats (src/safety/secretProviders.ts and the first rules below), key material in
 * its several wrappings, and generic rules that need no provider: a secret-looking value under a secret-looking
 * name in any syntax, credentials in URLs, headers and command lines. The text is scanned as written, then as a
 * normalised view (src/safety/secretText.ts: NFKC, invisible characters dropped, look-alike letters mapped, cut lines
 * rejoined), then each base64 or percent-encoded run is decoded and scanned again; every finding is reported
 * where it sits in the text as written.
 */

type CoreKind =
  | "rsa-private-key"
  | "ec-private-key"
  | "dsa-private-key"
  | "openssh-private-key"
  | "pkcs8-private-key"
  | "encrypted-private-key"
  | "pgp-private-key"
  | "putty-private-key"
  | "ssh2-private-key"
  | "openvpn-static-key"
  | "private-key-jwk"
  | "aws-access-key-id"
  | "aws-secret-access-key"
  | "gcp-service-account-key"
  | "azure-storage-key"
  | "azure-sas-token"
  | "github-token"
  | "gitlab-token"
  | "slack-token"
  | "slack-webhook"
  | "stripe-live-key"
  | "openai-api-key"
  | "anthropic-api-key"
  | "google-api-key"
  | "npm-token"
  | "pypi-token"
  | "huggingface-token"
  | "sendgrid-api-key"
  | "jwt"
  | "url-password"
  | "authorization-header"
  | "docker-registry-auth"
  | "netrc-credential"
  | "pgpass-credential"
  | "user-password-pair"
  | "password-flag"
  | "secret-in-text"
  | "secret-assignment"

export type SecretKind = CoreKind | ProviderKind

export interface SecretFinding {
  readonly kind: SecretKind
  /** 1-based line of the first character of the finding. */
  readonly line: number
  /** 1-based column (UTF-16 units) in that line. */
  readonly column: number
}

/** How a kind is named in messages, after "looks like". */
export const secretKindLabel: Readonly<Record<SecretKind, string>> = {
  "rsa-private-key": "an RSA private key",
  "ec-private-key": "an EC private key",
  "dsa-private-key": "a DSA private key",
  "openssh-private-key": "an OpenSSH private key",
  "pkcs8-private-key": "a PKCS#8 private key",
  "encrypted-private-key": "an encrypted private key",
  "pgp-private-key": "a PGP private key",
  "putty-private-key": "a PuTTY private key",
  "ssh2-private-key": "an SSH2 private key",
  "openvpn-static-key": "an OpenVPN static key",
  "private-key-jwk": "a private JSON Web Key",
  "aws-access-key-id": "an AWS access key ID",
  "aws-secret-access-key": "an AWS secret access key",
  "gcp-service-account-key": "a Google Cloud service-account key",
  "azure-storage-key": "an Azure connection-string key",
  "azure-sas-token": "an Azure SAS token",
  "github-token": "a GitHub token",
  "gitlab-token": "a GitLab token",
  "slack-token": "a Slack token",
  "slack-webhook": "a Slack webhook URL",
  "stripe-live-key": "a Stripe live key",
  "openai-api-key": "an OpenAI API key",
  "anthropic-api-key": "an Anthropic API key",
  "google-api-key": "a Google API key",
  "npm-token": "an npm token",
  "pypi-token": "a PyPI token",
  "huggingface-token": "a Hugging Face token",
  "sendgrid-api-key": "a SendGrid API key",
  jwt: "a JSON Web Token",
  "url-password": "a password or token in a URL",
  "authorization-header": "an Authorization header with credentials",
  "docker-registry-auth": "a Docker registry credential",
  "netrc-credential": "a .netrc password",
  "pgpass-credential": "a .pgpass password",
  "user-password-pair": "a user:password pair on a command line",
  "password-flag": "a password on a command line",
  "secret-in-text": "a password or token written out in the text",
  "secret-assignment": "a secret value in a password, token or key setting",
  ...Object.fromEntries(PROVIDER_RULES.map((r) => [r.kind, r.label]))
} as Readonly<Record<SecretKind, string>>

// ---------------------------------------------------------------------------------------------------------------
// Value heuristics

/** Shannon entropy in bits per character. */
export const shannonEntropy = (s: string): number => {
  if (s.length === 0) return 0
  const counts = new Map<string, number>()
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

const charClasses = (s: string): number =>
  (/[a-z]/.test(s) ? 1 : 0) + (/[A-Z]/.test(s) ? 1 : 0) + (/[0-9]/.test(s) ? 1 : 0) + (/[^A-Za-z0-9]/.test(s) ? 1 : 0)

/** Does `s` hold at least `k` distinct characters (k <= 8)? Stops as soon as it has seen them. */
const hasDistinct = (s: string, k: number): boolean => {
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

export const isPlaceholder = (value: string): boolean => {
  if (DOCUMENTED_EXAMPLES.has(value)) return true
  const lower = value.toLowerCase()
  for (const m of PLACEHOLDER_MARKERS) if (lower.includes(m)) return true
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
const plausibleValue = (value: string): boolean => {
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

// ---------------------------------------------------------------------------------------------------------------
// Secret-named settings

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

/** Strip quotes and trailing separators from the raw text after `NAME=` / `NAME:`; the value is its first word. */
const extractValue = (raw: string): string => {
  const s = raw.trimStart()
  const q = s[0]
  if (q === '"' || q === "'" || q === "`") {
    const end = s.indexOf(q, 1)
    return end === -1 ? s.slice(1).split(/\s/)[0]! : s.slice(1, end)
  }
  return (s.split(/\s/)[0] ?? "").replace(/[,;]+$/, "")
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

// ---------------------------------------------------------------------------------------------------------------
// Rules

interface Rule {
  readonly kind: SecretKind | ((m: RegExpExecArray) => SecretKind)
  readonly pattern: RegExp
  /** Generic rules yield to a specific finding they overlap (GITHUB_TOKEN=ghp_... is one GitHub token). */
  readonly generic?: boolean
  readonly accept?: (m: RegExpExecArray, text: string) => boolean
  /** The rule runs only when the text holds one of these (a cheap scan that skips most rules on most texts). */
  readonly triggers?: ReadonlyArray<string>
  /** The same, looked up in the lowercased text. */
  readonly lowerTriggers?: ReadonlyArray<string>
  /** The rule runs only on the lines that hold a match of this global pattern (a secret-naming word, `://`). */
  readonly lines?: RegExp
  /** Where the finding ends, when not at the end of the match (a setting ends with its value's first word). */
  readonly end?: (m: RegExpExecArray) => number
}

/** A few hundred characters after `at`, for rules that look at what follows a header. */
const following = (text: string, at: number, length: number): string => text.slice(at, at + length)
const preceding = (text: string, at: number, length: number): string => text.slice(Math.max(0, at - length), at)

/**
 * A private-key header counts only when key material follows before the next `-----` line: a base64 run, maybe
 * after headers or a literal \n.
 */
const keyBodyFollows = (m: RegExpExecArray, text: string): boolean => {
  let after = following(text, m.index + m[0].length, 1200)
  const stop = after.indexOf("-----")
  if (stop !== -1) after = after.slice(0, stop)
  const run = /[A-Za-z0-9+/]{40}/.exec(after)
  return run !== null && !isPlaceholder(run[0])
}

/** A PuTTY key file holds a Private-Lines section within its first lines (before any next key file). */
const puttyPrivateLinesFollow = (m: RegExpExecArray, text: string): boolean => {
  let after = following(text, m.index + m[0].length, 2000)
  const stop = after.indexOf("PuTTY-User-Key-File-")
  if (stop !== -1) after = after.slice(0, stop)
  return after.includes("Private-Lines:")
}

/** Words one of which every secret-named setting holds (see STRONG_TAILS and `key`). */
const SECRET_NAME_WORD = /pass|pwd|pw|secret|token|key|cred|auth|pat/gi
const URL_SCHEME_END = /:\/\//g
/** Commands that take a password after `-p` (or `-P`, `-a`). */
const PASSWORD_FLAG_COMMAND = /mysql|mariadb|sshpass|docker|podman|nerdctl|helm|buildah|skopeo|oras|login|mongo|redis-cli|zip|7z|unrar|openssl|smbclient|ldapsearch|ldapmodify|pg_|psql/gi

const PRIVATE_KEY_KINDS: Readonly<Record<string, SecretKind>> = {
  "RSA ": "rsa-private-key",
  "EC ": "ec-private-key",
  "DSA ": "dsa-private-key",
  "OPENSSH ": "openssh-private-key",
  "": "pkcs8-private-key",
  "ENCRYPTED ": "encrypted-private-key",
  "PGP ": "pgp-private-key",
  "SSH2 ": "ssh2-private-key",
  "SSH2 ENCRYPTED ": "ssh2-private-key"
}

/** The key type of a PEM label that names a private key (`RSA ` for "RSA PRIVATE KEY", "" for PKCS#8), else undefined. */
const privateKeyLabel = (raw: string): string | undefined => {
  const label = raw.replace(/[\r\n]/g, "").trim()
  const m = /^((?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP|SSH2|SSH2 ENCRYPTED) )?PRIVATE KEY(?: BLOCK)?$/.exec(label)
  return m === null ? undefined : (m[1] ?? "")
}

const assignmentAccepted = (m: RegExpExecArray): boolean => {
  const strength = secretNameStrength(m[1]!)
  return strength !== "none" && looksLikeSecretValue(extractValue(m[2]!), strength)
}

/** The end of `NAME=value`: the match's last group is the raw rest of the line; the value is its first word. */
const assignmentEnd = (m: RegExpExecArray): number => {
  const raw = m[m.length - 1]!
  const valueStart = m.index + m[0].length - raw.length
  const lead = raw.length - raw.trimStart().length
  const word = /^(?:"[^"\n]{0,512}"|'[^'\n]{0,512}'|`[^`\n]{0,512}`|\S{1,512})/.exec(raw.slice(lead))
  return valueStart + lead + (word === null ? 0 : word[0].length)
}

const tokenAccepted = (m: RegExpExecArray): boolean => !isPlaceholder(m[0])

/**
 * A value stated without a `=` or `:` a parser would read (prose, `.netrc`, command lines): it must look random,
 * not like a word, a path or code.
 */
const strictSecretValue = (raw: string): boolean => {
  const value = raw.replace(/[.,;:!?)\]}>]{1,4}$/, "")
  if (value.length < 8 || !looksLikeSecretValue(value, "strong")) return false
  // A JWT is the JWT rule's to judge (it knows unsigned and documented ones); `pk` keys are publishable.
  if (/^[\d:.,/-]{1,512}$/.test(value) || value.startsWith("eyJ") || /^pk[._]/.test(value)) return false
  const classes = charClasses(value)
  return classes >= 3 || (classes === 2 && value.length >= 16 && /[0-9]/.test(value) && shannonEntropy(value) >= 3.3)
}

/** A JWT whose header says `alg: none` carries no signature: it grants nothing and is not a secret. */
const unsignedJwt = (token: string): boolean => {
  const dot = token.indexOf(".")
  if (!token.startsWith("eyJ") || dot < 0) return false
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, dot), "base64url").toString("utf8")) as { alg?: unknown }
    return typeof header.alg === "string" && header.alg.toLowerCase() === "none"
  } catch {
    return false
  }
}

/** Base64 that decodes to `user:password` with a password worth the name. */
const encodedUserPassword = (b64: string): boolean => {
  const decoded = Buffer.from(b64, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 1 || /[\x00-\x1f\ufffd]/.test(decoded)) return false
  const password = decoded.slice(colon + 1)
  return password.length >= 4 && !isPlaceholder(password) && !password.startsWith("$")
}

/** Private-key DER prefixes, as base64: the body of a key whose armour lines were stripped. */
const DER_KEY_KINDS: ReadonlyArray<readonly [RegExp, SecretKind]> = [
  [/^MII[A-Za-z0-9+/]{2}[AQgw]IBAAK[BC]/, "rsa-private-key"],
  [/^MII[A-Za-z0-9+/]{2}[AQgw]IBADANBgkqhkiG9w0BAQEFAASC/, "pkcs8-private-key"],
  [/^M(?:HcCAQEE|IGkAgEBBD|IHcAgEBBE)/, "ec-private-key"],
  [/^M(?:I[GH][A-Za-z0-9+/]AgEAMB[AM]GByqGSM49|C4CAQAwBQYDK2V[wu]BCIE)/, "pkcs8-private-key"],
  [/^b3BlbnNzaC1rZXktdjE/, "openssh-private-key"]
]

/** Base64 characters (across line breaks and literal `\n`) following `at`. */
const base64Following = (text: string, at: number, limit: number): number => {
  let n = 0
  for (let i = at; i < text.length && i < at + limit * 2; i++) {
    const c = text.charCodeAt(i)
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 61) n++
    else if (c === 92 && text[i + 1] === "n") i++
    else if (c !== 10 && c !== 13 && c !== 32) break
  }
  return n
}

const providerRule = (r: ProviderRule): Rule => {
  const edge = r.edge ?? "A-Za-z0-9_"
  // Padding and separators may follow a token but may precede it too (`token=`, `/`), so they bound its end only.
  const before = edge.replace(/[=+/~.%:!]/g, "")
  return {
    kind: r.kind as SecretKind,
    pattern: new RegExp(`(?<![${before}])(?:${r.body})(?![${edge}])`, "g"),
    triggers: r.triggers,
    accept:
      r.mixed === true
        ? (m) => tokenAccepted(m) && /[0-9]/.test(m[0]) && /[A-Za-z]/.test(m[0]) && shannonEntropy(m[0]) >= 3
        : tokenAccepted
  }
}

const RULES: ReadonlyArray<Rule> = [
  {
    // The label may be cut by a line break (`BEGIN PRIVAT` / `E KEY-----`): it is judged with line breaks removed.
    kind: (m) => PRIVATE_KEY_KINDS[privateKeyLabel(m[1]!) ?? ""] ?? "pkcs8-private-key",
    pattern: /(?<!-)-{3,5} ?BEGIN ([A-Z0-9 \r\n]{3,40}?) ?-{3,5}/g,
    triggers: ["BEGIN "],
    accept: (m, text) => privateKeyLabel(m[1]!) !== undefined && keyBodyFollows(m, text)
  },
  {
    kind: "openvpn-static-key",
    pattern: /-{3,5}BEGIN OpenVPN Static key V[0-9]-{3,5}/g,
    triggers: ["OpenVPN Static key"],
    accept: (m, text) => /^\s{1,4}(?:[0-9a-f]{32}\s{0,4}){4}/.test(following(text, m.index + m[0].length, 200))
  },
  {
    kind: "rsa-private-key",
    pattern: /<RSAKeyValue>/g,
    triggers: ["<RSAKeyValue>"],
    accept: (m, text) => /<(?:D|P|DP|InverseQ)>[A-Za-z0-9+/]{20}/.test(following(text, m.index, 8000))
  },
  {
    kind: (m) => DER_KEY_KINDS.find(([re]) => re.test(m[0]))?.[1] ?? "pkcs8-private-key",
    pattern:
      /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA(?:AK[BC]|DANBgkqhkiG9w0BAQEFAASC)|MHcCAQEE|MIGkAgEBBD|MIHcAgEBBE|MI[GH][A-Za-z0-9+/]AgEAMB[AM]GByqGSM49|MC4CAQAwBQYDK2V[wu]BCIE|b3BlbnNzaC1rZXktdjE)/g,
    triggers: ["MII", "MHcCAQEE", "MC4CAQAw", "b3BlbnNzaC1rZXktdjE"],
    // A key body inside its armour is already the armour's finding.
    accept: (m, text) =>
      base64Following(text, m.index, 120) >= 110 && !/PRIVATE KEY|Private-Lines|BEGIN /.test(preceding(text, m.index, 400))
  },
  {
    kind: "private-key-jwk",
    pattern: /"d"[ \t]{0,4}:[ \t]{0,4}"([A-Za-z0-9_-]{20,1024})"/g,
    triggers: ["\"d\""],
    accept: (m, text) => /"kty"/.test(preceding(text, m.index, 600) + following(text, m.index, 600)) && !isPlaceholder(m[1]!)
  },
  {
    kind: "putty-private-key",
    pattern: /PuTTY-User-Key-File-[1-9]: ?[a-z0-9-]{3,40}/g,
    triggers: ["PuTTY-User-Key-File-"],
    accept: puttyPrivateLinesFollow
  },
  {
    kind: "gcp-service-account-key",
    pattern: /"private_key_id"[ \t]{0,4}:[ \t]{0,4}"[0-9a-f]{40}"/g,
    triggers: ["\"private_key_id\""],
  },
  {
    kind: "aws-access-key-id",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])/g,
    triggers: ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
    accept: tokenAccepted
  },
  {
    kind: "aws-secret-access-key",
    pattern:
      /(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key["'`]?[ \t]{0,4}(?:=>|:=|[:=])[ \t]{0,4}["'`]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    lowerTriggers: ["secret"],
    accept: (m) => !isPlaceholder(m[1]!) && charClasses(m[1]!) >= 3
  },
  {
    kind: "azure-storage-key",
    pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,100}={0,2})/g,
    triggers: ["AccountKey=", "SharedAccessKey="],
    accept: (m) => !isPlaceholder(m[1]!)
  },
  {
    kind: "azure-sas-token",
    pattern: /[?&;]sig=([A-Za-z0-9%+/]{30,200})/g,
    triggers: ["sig="],
    accept: (m, text) => !isPlaceholder(m[1]!) && /[?&;]sv=\d{4}-\d{2}-\d{2}/.test(preceding(text, m.index, 600))
  },
  {
    kind: "github-token",
    pattern: /(?<![A-Za-z0-9_])(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,255})(?![A-Za-z0-9_])/g,
    triggers: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    accept: tokenAccepted
  },
  {
    kind: "gitlab-token",
    pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent|ffct|wt)-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    triggers: ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-", "glagent-", "glffct-", "glwt-"],
    accept: tokenAccepted
  },
  {
    kind: "slack-token",
    pattern: /(?<![A-Za-z0-9_-])xox(?:[baprs]|e(?:\.xox[bp])?)-[0-9]{1,15}-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])/g,
    triggers: ["xox"],
    accept: tokenAccepted
  },
  {
    kind: "slack-webhook",
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{18,40}/g,
    triggers: ["hooks.slack.com"],
    accept: tokenAccepted
  },
  {
    kind: "stripe-live-key",
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{20,250}(?![A-Za-z0-9_])/g,
    triggers: ["_live_"],
    accept: tokenAccepted
  },
  {
    kind: "anthropic-api-key",
    pattern: /(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,250}(?![A-Za-z0-9_-])/g,
    triggers: ["sk-ant-"],
    accept: tokenAccepted
  },
  {
    kind: "openai-api-key",
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,250}|[A-Za-z0-9]{32,200})(?![A-Za-z0-9_-])/g,
    triggers: ["sk-"],
    accept: (m) => tokenAccepted(m) && charClasses(m[0].slice(3)) >= 2
  },
  {
    kind: "google-api-key",
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
    triggers: ["AIza"],
    accept: tokenAccepted
  },
  {
    kind: "npm-token",
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g,
    triggers: ["npm_"],
    accept: tokenAccepted
  },
  {
    kind: "pypi-token",
    pattern: /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,500}(?![A-Za-z0-9_-])/g,
    triggers: ["pypi-AgE"],
    accept: tokenAccepted
  },
  {
    kind: "huggingface-token",
    pattern: /(?<![A-Za-z0-9_])(?:hf_|api_org_)[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])/g,
    triggers: ["hf_", "api_org_"],
    accept: (m) => tokenAccepted(m) && /[a-z]/.test(m[0].slice(3)) && /[A-Z]/.test(m[0].slice(3))
  },
  {
    kind: "sendgrid-api-key",
    pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    triggers: ["SG."],
    accept: tokenAccepted
  },
  ...PROVIDER_RULES.map(providerRule),
  {
    kind: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}(?![A-Za-z0-9_-])/g,
    triggers: ["eyJ"],
    accept: (m) =>
      !m[0].endsWith(".") &&
      !unsignedJwt(m[0]) &&
      !isPlaceholder(m[0].slice(m[0].lastIndexOf(".") + 1)) &&
      !isPlaceholder(m[0].slice(0, 40))
  },
  {
    kind: "docker-registry-auth",
    pattern: /"auth"[ \t]{0,4}:[ \t]{0,4}"([A-Za-z0-9+/]{8,2048}={0,2})"/g,
    triggers: ["\"auth\""],
    accept: (m) => encodedUserPassword(m[1]!)
  },
  {
    kind: "netrc-credential",
    pattern:
      /(?<![A-Za-z0-9_-])machine[ \t]{1,8}[^\s]{1,253}[ \t\r\n]{1,16}(?:login[ \t]{1,8}[^\s]{1,128}[ \t\r\n]{1,16})?(?:password|passwd)[ \t]{1,8}([^\s]{1,256})/g,
    triggers: ["machine"],
    accept: (m) => plausibleValue(m[1]!) && m[1]!.length >= 4
  },
  {
    kind: "pgpass-credential",
    pattern: /^([^:\s]{1,253}):([0-9]{1,5}|\*):([^:\s]{1,128}):([^:\s]{1,128}):([^\s]{4,256})$/gm,
    triggers: [":"],
    accept: (m) => plausibleValue(m[5]!) && !/^\d{1,10}$/.test(m[5]!) && /[A-Za-z]/.test(m[3]! + m[4]!)
  },
  {
    kind: "url-password",
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([^\s:/@"'`<>]{0,128}):([^\s/@"'`<>]{1,256})@/g,
    lines: URL_SCHEME_END,
    generic: true,
    accept: (m) => urlPasswordAccepted(m[1]!, m[2]!)
  },
  // A token standing alone as a URL's user part (https://TOKEN@host).
  {
    kind: "url-password",
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([A-Za-z0-9_.~-]{20,256})@/g,
    lines: URL_SCHEME_END,
    generic: true,
    accept: (m) => looksLikeSecretValue(m[1]!, "strong") && charClasses(m[1]!) >= 2 && /[0-9]/.test(m[1]!)
  },
  {
    kind: "authorization-header",
    pattern:
      /(?<![A-Za-z0-9_-])(?:proxy-)?authorization["'`]?[ \t]{0,4}[:=]?[ \t]{0,4}["'`]?([A-Za-z][A-Za-z0-9_-]{1,30})[ \t]{1,4}([^\s"'`,;]{1,2048})/gi,
    lowerTriggers: ["authorization"],
    generic: true,
    accept: (m) => {
      const v = m[2]!
      if (/^(?:is|are|was|header|headers|required|with|for|the|to|of|and|or)$/i.test(m[1]!)) return false
      return v.length >= 8 && plausibleValue(v) && hasDistinct(v, 5) && !unsignedJwt(v)
    }
  },
  // curl -u user:password, --user=user:password
  {
    kind: "user-password-pair",
    pattern: /(?<![A-Za-z0-9_-])(?:-u|--user|--proxy-user)(?:[ \t]{1,4}|=)["']?([^\s"':$]{1,128}):([^\s"']{1,256})/g,
    triggers: ["-u", "--user", "--proxy-user"],
    generic: true,
    accept: (m) => {
      const pw = m[2]!.replace(/["']$/, "")
      return pw.length >= 6 && plausibleValue(pw) && charClasses(pw) >= 2 && !/^\d{1,5}$/.test(pw)
    }
  },
  // mysql -pSECRET, docker login -p SECRET, sshpass -p 'SECRET', zip -P SECRET, redis-cli -a SECRET
  {
    kind: "password-flag",
    pattern: /(?<![A-Za-z0-9_-])-[pPa](?:[ \t]{1,4})?["']?([^\s"']{6,256})/g,
    triggers: ["-p", "-P", "-a"],
    lines: PASSWORD_FLAG_COMMAND,
    generic: true,
    accept: (m) => {
      const v = m[1]!
      return plausibleValue(v) && !/^[\d:.,/-]{1,256}$/.test(v) && charClasses(v) >= 2 && hasDistinct(v, 5)
    }
  },
  // Secret-named settings. Line-anchored form: YAML, .env, Markdown labels ("- **DB password**: ..."), code.
  {
    kind: "secret-assignment",
    pattern:
      /^[ \t]{0,16}(?:[-*+>][ \t]{1,4}){0,2}(?:(?:export|set|setx|const|let|var|readonly)[ \t]{1,4}|\$env:)?[*_`"']{0,2}([A-Za-z_][A-Za-z0-9_.-]{0,63}(?: [A-Za-z][A-Za-z0-9_.-]{0,31}){0,4})[*_`"']{0,2}[ \t]{0,8}(?:=>|:=|[:=])[ \t]{0,8}([^\n]{1,512})/gm,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
  },
  // NAME=value anywhere on a line (inline environment, query strings, connection strings).
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_.$-])([A-Za-z_][A-Za-z0-9_ ]{0,63})=([^\s=;&][^\s;&]{0,511})/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
  },
  // Name: value anywhere on a line (an HTTP header in a curl command).
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_.$-])([A-Za-z][A-Za-z0-9_-]{1,63}):[ \t]{1,4}([^\s"'`,;]{8,512})/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
  },
  // "name": "value" anywhere (compact JSON).
  {
    kind: "secret-assignment",
    pattern: /"([A-Za-z_][A-Za-z0-9_.-]{0,63})"[ \t]{0,4}:[ \t]{0,4}("[^"\n]{1,512}")/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
  },
  // name "value" (Gradle, nginx, HCL without `=`).
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_.$-])([A-Za-z_][A-Za-z0-9_.-]{1,63})[ \t]{1,4}("[^"\n]{1,512}"|'[^'\n]{1,512}')/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: (m) => secretNameStrength(m[1]!) === "strong" && looksLikeSecretValue(extractValue(m[2]!), "strong"),
    end: assignmentEnd
  },
  // <password>value</password>, <add key="SmtpPassword" value="..."/>
  {
    kind: "secret-assignment",
    pattern: /<([A-Za-z_][A-Za-z0-9_.:-]{0,63})(?:[ \t][^>\n]{0,200})?>([^<\n]{1,512})<\/\1>/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted
  },
  {
    kind: "secret-assignment",
    pattern: /(?:key|name)[ \t]{0,4}=[ \t]{0,4}"([^"\n]{1,64})"[ \t]{1,8}value[ \t]{0,4}=[ \t]{0,4}("[^"\n]{1,512}")/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted
  },
  // YAML block scalars: `password: |` with the value on the next, indented line.
  {
    kind: "secret-assignment",
    pattern: /^[ \t]{0,16}(?:-[ \t]{1,4})?([A-Za-z_][A-Za-z0-9_.-]{0,63}):[ \t]{0,4}[|>][+-]?[0-9]?[ \t]{0,4}\r?\n[ \t]{1,32}([^\s][^\n]{0,511})/gm,
    triggers: [": |", ": >", ":|", ":>"],
    generic: true,
    accept: assignmentAccepted
  },
  // Command-line flags: --password=..., --token ...
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9-]{1,40})(?:=|[ \t]{1,4})("[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'`]{1,256})/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
  },
  // echo VALUE > master.key
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_-])(?:echo|printf)[ \t]{1,4}(?:-[ne][ \t]{1,4})?["']?([A-Za-z0-9+/=_.-]{16,512})["']?[ \t]{0,4}>{1,2}[ \t]{0,4}([^\s;|&]{1,256})/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: (m) => {
      const target = m[2]!.slice(m[2]!.lastIndexOf("/") + 1)
      return secretNameStrength(target) !== "none" && looksLikeSecretValue(m[1]!, "strong")
    }
  },
  // A password or token stated in prose: "the admin password is ...", "pass ...", "My API token is ...".
  {
    kind: "secret-in-text",
    pattern:
      /(?<![A-Za-z0-9_:/.-])(?:password|passwd|passphrase|pass|pwd|pw|token|secret|(?:api|access|auth|bearer|bot|service|deploy|secret)[ _-]?(?:token|key))(?![A-Za-z0-9_-])(?:[ \t]{1,4}for[ \t]{1,4}[^\n]{1,60}?)?(?:[ \t]{1,4}(?:is|was|are|of)[ \t]{1,4}|[ \t]{0,4}[:=-][ \t]{0,4}|[ \t]{1,4})["'`\u201c]?([^\s"'`\u201d]{8,256})/gi,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: (m, text) => strictSecretValue(m[1]!) && !/public|publishable/i.test(preceding(text, m.index, 24))
  }
]

/** Passwords that are stock defaults of local services (postgres:postgres) or stand-ins, in URLs. */
const DEFAULT_URL_PASSWORDS: ReadonlySet<string> = new Set([
  "password", "pass", "passwd", "pwd", "secret", "postgres", "root", "admin", "guest", "test", "user", "mysql",
  "redis", "rabbitmq", "changeme", "example", "demo", "dev", "local", "x-oauth-basic"
])

const urlPasswordAccepted = (user: string, password: string): boolean => {
  let decoded = password
  try {
    decoded = decodeURIComponent(password)
  } catch {
    // Not percent-encoded text: judge it as written.
  }
  if (decoded === user || DEFAULT_URL_PASSWORDS.has(decoded.toLowerCase())) return false
  if (/^[$%{]/.test(decoded) || isPlaceholder(decoded)) return false
  // "host:port@" is not a credential; nor is an empty or one-character password.
  if (/^\d{1,5}$/.test(decoded) || decoded.length < 3) return false
  return true
}

/** The pattern sources, for the test that checks every quantifier is bounded. */
export const SECRET_PATTERNS: ReadonlyArray<RegExp> = [...RULES.map((r) => r.pattern), ...TEXT_PATTERNS]

// ---------------------------------------------------------------------------------------------------------------
// Detection

interface Hit {
  readonly kind: SecretKind
  readonly start: number
  readonly end: number
  readonly generic: boolean
}

const lineStarts = (text: string): Array<number> => {
  const starts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1)
  return starts
}

const positionOf = (starts: ReadonlyArray<number>, offset: number): { line: number; column: number } => {
  let lo = 0
  let hi = starts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (starts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 }
}

/** [start, end) of each line holding a match of `word` (a global pattern). */
const lineSpansHolding = (text: string, word: RegExp): Array<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  word.lastIndex = 0
  for (let m = word.exec(text); m !== null; m = word.exec(text)) {
    const start = text.lastIndexOf("\n", m.index) + 1
    const newline = text.indexOf("\n", m.index)
    const end = newline === -1 ? text.length : newline
    spans.push([start, end])
    word.lastIndex = end
  }
  return spans
}

/**
 * The prefilter's table: which characters, and which pairs of adjacent characters (folded to 7 bits, so a non-ASCII
 * pair may look present, never absent), the text being scanned holds. Stamped with a generation instead of cleared.
 */
const pairs = new Uint32Array(1 << 14)
const singles = new Uint32Array(128)
let generation = 0
const pairIndex = (a: number, b: number): number => ((a & 127) << 7) | (b & 127)
const markPairs = (text: string): void => {
  generation = (generation + 1) >>> 0
  if (generation === 0) {
    pairs.fill(0)
    singles.fill(0)
    generation = 1
  }
  const g = generation
  let prev = text.charCodeAt(0)
  if (text.length > 0) singles[prev & 127] = g
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    singles[c & 127] = g
    pairs[pairIndex(prev, c)] = g
    prev = c
  }
}

/** Hits of every rule in `text`, in `text`'s offsets. */
const scan = (text: string, hits: Array<Hit>, toOriginal: (start: number, end: number) => readonly [number, number]): void => {
  let lower: string | undefined
  const spansByWord = new Map<RegExp, Array<readonly [number, number]>>()
  const run = (rule: Rule, segment: string, base: number): void => {
    // Rules hold global patterns; lastIndex is reset per run (detection is synchronous, so never shared mid-run).
    const pattern = rule.pattern
    pattern.lastIndex = 0
    for (let m = pattern.exec(segment); m !== null; m = pattern.exec(segment)) {
      if (m[0].length === 0) pattern.lastIndex++
      if (rule.accept !== undefined && !rule.accept(m, segment)) continue
      const kind = typeof rule.kind === "function" ? rule.kind(m) : rule.kind
      const end = rule.end === undefined ? m.index + m[0].length : rule.end(m)
      const [s, e] = toOriginal(base + m.index, base + Math.max(end, m.index + 1))
      hits.push({ kind, start: s, end: e, generic: rule.generic === true })
    }
  }
  markPairs(text)
  const stamp = generation
  const present = (triggers: ReadonlyArray<string>, within: string): boolean => {
    for (const t of triggers) if (within.includes(t)) return true
    return false
  }
  // A trigger whose first two characters never occur together in the text cannot occur in it.
  const triggered = (triggers: ReadonlyArray<string>): boolean => {
    for (const t of triggers) {
      if (t.length === 1 ? singles[t.charCodeAt(0) & 127] !== stamp : pairs[pairIndex(t.charCodeAt(0), t.charCodeAt(1))] !== stamp) continue
      if (t.length <= 2 || text.includes(t)) return true
    }
    return false
  }
  for (const rule of RULES) scanRule(rule)
  function scanRule(rule: Rule): void {
    if (rule.triggers !== undefined && !triggered(rule.triggers)) return
    if (rule.lowerTriggers !== undefined) {
      lower ??= text.toLowerCase()
      const l = lower
      if (!present(rule.lowerTriggers, l)) return
    }
    if (rule.lines !== undefined) {
      let spans = spansByWord.get(rule.lines)
      if (spans === undefined) {
        spans = lineSpansHolding(text, rule.lines)
        spansByWord.set(rule.lines, spans)
      }
      for (const [start, end] of spans) run(rule, text.slice(start, end), start)
    } else {
      run(rule, text, 0)
    }
  }
}

/** Context kept around a change of a view: enough for a setting's name before it and a key body after it. */
const WINDOW_BEFORE = 256
const WINDOW_AFTER = 1536

/** How far a window's edge moves to reach a line boundary. */
const SNAP = 256

/**
 * [from, to) stretches of `view` around each place where it differs from `text`, widened to line boundaries within
 * SNAP characters. Linear: a change inside the current window costs one comparison, and each widening is bounded.
 */
const changedWindows = (text: string, view: string, map: Int32Array): Array<[number, number]> => {
  const windows: Array<[number, number]> = []
  let current: [number, number] | undefined
  for (let i = 0; i < map.length; i++) {
    if (map[i] === (i === 0 ? 0 : map[i - 1]! + 1) && view.charCodeAt(i) === text.charCodeAt(map[i]!)) continue
    if (current !== undefined && i + WINDOW_AFTER <= current[1]) continue
    let from = Math.max(0, i - WINDOW_BEFORE)
    for (let k = from; k > 0 && from - k < SNAP; k--) {
      if (view.charCodeAt(k - 1) === 10) {
        from = k
        break
      }
    }
    // Widen by twice the margin, so a run of changes widens the window once per WINDOW_AFTER characters.
    let to = Math.min(view.length, i + 2 * WINDOW_AFTER)
    for (let k = to; k < view.length && k - to < SNAP; k++) {
      if (view.charCodeAt(k) === 10) {
        to = k
        break
      }
    }
    if (current !== undefined && from <= current[1]) current[1] = Math.max(current[1], to)
    else {
      current = [from, to]
      windows.push(current)
    }
  }
  return windows
}

/** How many times decoded text is decoded again (base64 inside percent-encoding, say). */
const MAX_DECODE_DEPTH = 2

/**
 * Hits in `text` as written, in its normalised view, and in its decoded runs, all in `text`'s offsets. A hit in a
 * decoded run covers the whole encoded run.
 */
const collect = (text: string, depth: number, hits: Array<Hit>): void => {
  const identity = (s: number, e: number): readonly [number, number] => [s, e]
  scan(text, hits, identity)
  // Views, each over the one before: normalised, then percent-decoded. `back` maps the last one to `text`.
  let current = text
  let back = identity
  // Percent-decoding twice undoes a doubly encoded value (`%252D` is `-`).
  for (const make of [characterView, joinedView, percentView, percentView]) {
    const view = make(current)
    if (view === undefined) continue
    const map = view.map!
    const outer = back
    const viewBack = (s: number, e: number): readonly [number, number] =>
      outer(map[Math.min(s, map.length - 1)]!, map[Math.max(0, Math.min(e, map.length) - 1)]! + 1)
    // Only the stretches around what the view changed can hold a finding the text before it did not.
    for (const [from, to] of changedWindows(current, view.text, map)) {
      scan(view.text.slice(from, to), hits, (s, e) => viewBack(s + from, e + from))
    }
    back = viewBack
    current = view.text
  }
  if (depth >= MAX_DECODE_DEPTH) return
  for (const run of decodedRuns(current)) {
    const inner: Array<Hit> = []
    collect(run.text, depth + 1, inner)
    if (inner.length === 0) continue
    const [s, e] = back(run.start, run.end)
    const kinds = new Set<SecretKind>()
    for (const h of inner) if (!h.generic || !inner.some((o) => !o.generic)) kinds.add(h.kind)
    for (const kind of kinds) hits.push({ kind, start: s, end: e, generic: inner.every((h) => h.kind !== kind || h.generic) })
  }
}

/** Every credential-looking thing in `text`, in order of position. Never returns the values. */
export const detectSecrets = (text: string): Array<SecretFinding> => {
  const hits: Array<Hit> = []
  collect(text, 0, hits)
  // A generic finding inside or around a specific one is the same secret: keep the specific name.
  const specific = hits.filter((h) => !h.generic).sort((a, b) => a.start - b.start)
  const overlapsSpecific = (h: Hit): boolean => {
    // Specific hits are short and rarely overlap one another, so the scan back from the first start past h.end is brief.
    let lo = 0
    let hi = specific.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (specific[mid]!.start < h.end) lo = mid + 1
      else hi = mid
    }
    for (let i = lo - 1; i >= 0 && i >= lo - 8; i--) if (specific[i]!.end > h.start) return true
    return false
  }
  const kept = hits.filter((h) => !h.generic || !overlapsSpecific(h)).sort((a, b) => a.start - b.start || b.end - a.end)
  const starts = lineStarts(text)
  const seen = new Set<string>()
  const findings: Array<SecretFinding> = []
  // Two generic rules matching the same setting (`export A_TOKEN=...` is both a line and an inline assignment), and
  // one secret seen in several views: the first finding stands for the others.
  let genericEnd = -1
  const kindEnd = new Map<SecretKind, number>()
  for (const h of kept) {
    if (h.generic) {
      if (h.start < genericEnd) continue
      genericEnd = h.end
    }
    if (h.start < (kindEnd.get(h.kind) ?? -1)) continue
    kindEnd.set(h.kind, h.end)
    const { line, column } = positionOf(starts, h.start)
    const key = `${h.kind}:${line}:${column}`
    if (seen.has(key)) continue
    seen.add(key)
    findings.push({ kind: h.kind, line, column })
  }
  return findings
}

const MAX_LISTED = 5

/**
 * The refusal the model reads when it tried to write a credential into memory: which kind, where, and what to do.
 * `fileLabel` names the file as the model knows it (for example "topics/deploy.md").
 */
export const secretRefusalReason = (findings: ReadonlyArray<SecretFinding>, fileLabel: string): string => {
  const listed = findings.slice(0, MAX_LISTED).map((f) => `${secretKindLabel[f.kind]} at line ${f.line}`)
  const more = findings.length > MAX_LISTED ? `, and ${findings.length - MAX_LISTED} more` : ""
  const what = listed.length <= 1 ? (listed[0] ?? "a credential") : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`
  const it = findings.length > 1 ? "them" : "it"
  return `Refused: the content for ${fileLabel} holds what looks like ${what}${more}. Memory must never hold credentials: remove or redact ${it}, and describe where the credential lives instead of its value (for example "the deploy token is the DEPLOY_TOKEN secret of the CI"), then retry. Encoding, splitting or disguising the value does not get it past this check.`
}
