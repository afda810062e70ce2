/**
 * Rules for credentials recognised by where they sit rather than by their shape: a Docker registry `auth`, .netrc
 * and .pgpass entries, passwords and tokens in URLs, Authorization headers, `user:password` and `-p PASSWORD` on
 * command lines. Most are generic (they yield to a specific finding they overlap). In scan order.
 */
import type { Rule } from "./rule.ts"
import { charClasses, hasDistinct, isPlaceholder, looksLikeSecretValue, plausibleValue, unsignedJwt } from "./values.ts"

const URL_SCHEME_END = /:\/\//g
/** Commands that take a password after `-p` (or `-P`, `-a`). */
const PASSWORD_FLAG_COMMAND = /mysql|mariadb|sshpass|docker|podman|nerdctl|helm|buildah|skopeo|oras|login|mongo|redis-cli|zip|7z|unrar|openssl|smbclient|ldapsearch|ldapmodify|pg_|psql/gi

/** Base64 that decodes to `user:password` with a password worth the name. */
const encodedUserPassword = (b64: string): boolean => {
  const decoded = Buffer.from(b64, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 1 || /[\x00-\x1f\ufffd]/.test(decoded)) return false
  const password = decoded.slice(colon + 1)
  return password.length >= 4 && !isPlaceholder(password) && !password.startsWith("$")
}

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

export const CONTEXT_RULES: ReadonlyArray<Rule> = [
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
    spansLines: true,
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
]
