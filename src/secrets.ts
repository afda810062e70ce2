/**
 * The credential detector: finds what looks like a secret in text bound for memory (background writes, the main
 * agent's writes into the memory directory, `pm lint`). Pure, no I/O. A finding names the kind and where it starts,
 * never the value, so no caller can leak it into a message, a log or a model's context.
 *
 * Linear time: every pattern uses bounded quantifiers only, and every unanchored pattern starts behind a negative
 * lookbehind of its own character class, so a match attempt begins only at the start of a run and a failed attempt
 * costs at most its bound. `SECRET_PATTERNS` exposes the sources so a test can check that.
 */

export type SecretKind =
  | "rsa-private-key"
  | "ec-private-key"
  | "dsa-private-key"
  | "openssh-private-key"
  | "pkcs8-private-key"
  | "encrypted-private-key"
  | "pgp-private-key"
  | "putty-private-key"
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
  | "twilio-credential"
  | "jwt"
  | "url-password"
  | "authorization-header"
  | "secret-assignment"

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
  "twilio-credential": "a Twilio credential",
  jwt: "a JSON Web Token",
  "url-password": "a password in a URL",
  "authorization-header": "an Authorization header with credentials",
  "secret-assignment": "a secret value in a password, token or key setting"
}

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

const distinctChars = (s: string): number => new Set(s).size

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
  return value.length >= 8 && distinctChars(value) < 5
}

const HEX_HASH = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** Words that stand for "no value here" or name where the value lives. */
const NON_VALUES: ReadonlySet<string> = new Set([
  "true", "false", "null", "none", "nil", "undefined", "required", "optional", "yes", "no", "on", "off", "empty",
  "string", "str", "int", "bool", "secret", "password", "token", "hidden", "masked", "omitted", "unset", "env",
  "vault", "keychain", "keyring", "1password", "bitwarden", "lastpass", "n/a", "na", "tbd", "auto", "default"
])

/** Is `value` (already unquoted) something that could be a real secret rather than a reference or a word? */
const plausibleValue = (value: string): boolean => {
  if (value.length === 0 || value.length > 512) return false
  if (NON_VALUES.has(value.toLowerCase())) return false
  if (isPlaceholder(value)) return false
  // References: variables, YAML anchors and tags, templating, file and URL references.
  if (/^[$%&*!@]/.test(value) || /^-{1,2}[A-Za-z]/.test(value)) return false
  if (/^(?:\.{0,2}\/|~\/)/.test(value) || value.includes("://")) return false
  if (/\.(?:pem|key|json|txt|env|ya?ml|toml|crt|cer|p12|pfx|gpg|asc|ini|conf|cfg)$/i.test(value)) return false
  // Code: a call or index expression, a dotted identifier, an ALL_CAPS environment variable name.
  if (/^[A-Za-z_][\w.]{0,200}[[(]/.test(value)) return false
  if (/^[A-Za-z_]\w{0,100}(?:\.[A-Za-z_]\w{0,100}){1,10}$/.test(value)) return false
  if (/^[A-Z][A-Z0-9_]{0,100}$/.test(value)) return false
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
  "secret", "password", "passwd", "pwd", "passphrase", "pass", "token", "apikey", "secretkey", "accesskey",
  "privatekey", "authtoken", "accesstoken", "refreshtoken", "clientsecret", "credential", "credentials", "creds"
])

/** Qualifiers that make `..._key` a secret (api_key, private_key, signing_key). */
const SECRET_KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "api", "secret", "access", "private", "signing", "encryption", "master", "license", "client", "app", "auth",
  "service", "account", "admin", "webhook", "session", "shared", "storage", "crypt", "hmac", "jwt", "sign"
])

/** Qualifiers that make `..._key` an identifier, not a secret (cache_key, public_key). */
const NON_SECRET_KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "public", "pub", "cache", "sort", "partition", "primary", "foreign", "hash", "range", "idempotency", "lookup",
  "map", "object", "s3", "i18n", "translation", "react", "unique", "composite", "shortcut", "hot", "dedup", "dedupe",
  "group", "routing", "row", "column", "field", "index", "dict", "host", "ssh", "gpg", "pgp", "deploy", "registry"
])

/** Final segments that make a name a secret's metadata, not the secret itself (secret_name, token_url). */
const TRAILING_VALUE_SEGMENTS: ReadonlySet<string> = new Set(["base", "value", "b64", "base64", "hex", "raw", "plain", "plaintext"])

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
  if (STRONG_TAILS.has(tail)) return "strong"
  if (tail === "key") {
    const qualifier = i > 0 ? segs[i - 1]! : undefined
    if (qualifier === undefined) return "weak"
    if (NON_SECRET_KEY_QUALIFIERS.has(qualifier)) return "none"
    if (SECRET_KEY_QUALIFIERS.has(qualifier) || STRONG_TAILS.has(qualifier)) return "strong"
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
    if (distinctChars(value) < 5) return false
    return charClasses(value) >= 2 && shannonEntropy(value) >= 2.5
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
const SECRET_NAME_WORD = /pass|pwd|secret|token|key|cred/gi
const URL_SCHEME_END = /:\/\//g

const PRIVATE_KEY_KINDS: Readonly<Record<string, SecretKind>> = {
  "RSA ": "rsa-private-key",
  "EC ": "ec-private-key",
  "DSA ": "dsa-private-key",
  "OPENSSH ": "openssh-private-key",
  "": "pkcs8-private-key",
  "ENCRYPTED ": "encrypted-private-key",
  "PGP ": "pgp-private-key"
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

const RULES: ReadonlyArray<Rule> = [
  {
    kind: (m) => PRIVATE_KEY_KINDS[m[1] ?? ""] ?? "pkcs8-private-key",
    pattern: /-----BEGIN (RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |)PRIVATE KEY(?: BLOCK)?-----/g,
    triggers: ["PRIVATE KEY"],
    accept: keyBodyFollows
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
    pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat)-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    triggers: ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-"],
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
  {
    kind: "twilio-credential",
    pattern: /(?<![A-Za-z0-9])(?:AC|SK)[0-9a-f]{32}(?![A-Za-z0-9])/g,
    triggers: ["AC", "SK"],
    accept: (m) => tokenAccepted(m) && /[a-f]/.test(m[0].slice(2))
  },
  {
    kind: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}(?![A-Za-z0-9_-])/g,
    triggers: ["eyJ"],
    accept: (m) => !isPlaceholder(m[0].slice(m[0].lastIndexOf(".") + 1)) && !isPlaceholder(m[0].slice(0, 40))
  },
  {
    kind: "url-password",
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/([^\s:/@"'`<>]{1,128}):([^\s/@"'`<>]{1,256})@/g,
    lines: URL_SCHEME_END,
    generic: true,
    accept: (m) => urlPasswordAccepted(m[1]!, m[2]!)
  },
  {
    kind: "authorization-header",
    pattern:
      /(?<![A-Za-z0-9_-])(?:proxy-)?authorization["'`]?[ \t]{0,4}[:=][ \t]{0,4}["'`]?(?:bearer|basic|token|bot|digest)[ \t]{1,4}([^\s"'`,;]{1,1024})/gi,
    lowerTriggers: ["authorization"],
    generic: true,
    accept: (m) => {
      const v = m[1]!
      return v.length >= 8 && plausibleValue(v) && distinctChars(v) >= 5
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
  // NAME=value anywhere on a line (inline environment in a command).
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_.$-])([A-Za-z_][A-Za-z0-9_]{0,63})=([^\s=][^\s]{0,511})/g,
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
  // Command-line flags: --password=..., --token ...
  {
    kind: "secret-assignment",
    pattern: /(?<![A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9-]{1,40})(?:=|[ \t]{1,4})("[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'`]{1,256})/g,
    lines: SECRET_NAME_WORD,
    generic: true,
    accept: assignmentAccepted,
    end: assignmentEnd
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
export const SECRET_PATTERNS: ReadonlyArray<RegExp> = RULES.map((r) => r.pattern)

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

/** Every credential-looking thing in `text`, in order of position. Never returns the values. */
export const detectSecrets = (text: string): Array<SecretFinding> => {
  const hits: Array<Hit> = []
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
      hits.push({ kind, start: base + m.index, end: base + end, generic: rule.generic === true })
    }
  }
  for (const rule of RULES) {
    if (rule.triggers !== undefined && !rule.triggers.some((t) => text.includes(t))) continue
    if (rule.lowerTriggers !== undefined) {
      lower ??= text.toLowerCase()
      const l = lower
      if (!rule.lowerTriggers.some((t) => l.includes(t))) continue
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
  // Two generic rules matching the same setting (`export A_TOKEN=...` is both a line and an inline assignment).
  let genericEnd = -1
  for (const h of kept) {
    if (h.generic) {
      if (h.start < genericEnd) continue
      genericEnd = h.end
    }
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
  return `Refused: the content for ${fileLabel} holds what looks like ${what}${more}. Memory must never hold credentials: remove or redact ${it} (write <redacted>, or say where the secret is kept) and retry.`
}
