/**
 * Rules for private-key material in its several wrappings: PEM armour (even with a label cut by a line break), an
 * OpenVPN static key, .NET's RSAKeyValue XML, bare DER bodies whose armour was stripped, private JSON Web Keys,
 * PuTTY key files and Google service-account files. A header alone is not a finding: key material must follow.
 * In scan order; the order is part of what the detector reports (ties keep the first rule's finding).
 */
import type { SecretKind } from "./kinds.ts"
import { following, preceding, type Rule } from "./rule.ts"
import { isPlaceholder } from "./values.ts"

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

export const KEY_RULES: ReadonlyArray<Rule> = [
  {
    // The label may be cut by a line break (`BEGIN PRIVAT` / `E KEY-----`): it is judged with line breaks removed.
    kind: (m) => PRIVATE_KEY_KINDS[privateKeyLabel(m[1]!) ?? ""] ?? "pkcs8-private-key",
    // Up to six dashes: a diff of a removed key prefixes its lines with one more (`------BEGIN ...`).
    pattern: /(?<!-)-{3,6} ?BEGIN ([A-Z0-9 \r\n]{3,40}?) ?-{3,5}/g,
    triggers: ["BEGIN "],
    spansLines: true,
    accept: (m, text) => privateKeyLabel(m[1]!) !== undefined && keyBodyFollows(m, text)
  },
  {
    kind: "openvpn-static-key",
    pattern: /-{3,5}BEGIN OpenVPN Static key V[0-9]-{3,5}/g,
    triggers: ["OpenVPN Static key"],
    spansLines: true,
    accept: (m, text) => /^\s{1,4}(?:[0-9a-f]{32}\s{0,4}){4}/.test(following(text, m.index + m[0].length, 200))
  },
  {
    kind: "rsa-private-key",
    pattern: /<RSAKeyValue>/g,
    triggers: ["<RSAKeyValue>"],
    spansLines: true,
    accept: (m, text) => /<(?:D|P|DP|InverseQ)>[A-Za-z0-9+/]{20}/.test(following(text, m.index, 8000))
  },
  {
    kind: (m) => DER_KEY_KINDS.find(([re]) => re.test(m[0]))?.[1] ?? "pkcs8-private-key",
    pattern:
      /(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA(?:AK[BC]|DANBgkqhkiG9w0BAQEFAASC)|MHcCAQEE|MIGkAgEBBD|MIHcAgEBBE|MI[GH][A-Za-z0-9+/]AgEAMB[AM]GByqGSM49|MC4CAQAwBQYDK2V[wu]BCIE|b3BlbnNzaC1rZXktdjE)/g,
    triggers: ["MII", "MHcCAQEE", "MC4CAQAw", "b3BlbnNzaC1rZXktdjE"],
    spansLines: true,
    // A key body inside its armour is already the armour's finding.
    accept: (m, text) =>
      base64Following(text, m.index, 120) >= 110 && !/PRIVATE KEY|Private-Lines|BEGIN /.test(preceding(text, m.index, 400))
  },
  {
    kind: "private-key-jwk",
    pattern: /"d"[ \t]{0,4}:[ \t]{0,4}"([A-Za-z0-9_-]{20,1024})"/g,
    triggers: ["\"d\""],
    spansLines: true,
    accept: (m, text) => /"kty"/.test(preceding(text, m.index, 600) + following(text, m.index, 600)) && !isPlaceholder(m[1]!)
  },
  {
    kind: "putty-private-key",
    pattern: /PuTTY-User-Key-File-[1-9]: ?[a-z0-9-]{3,40}/g,
    triggers: ["PuTTY-User-Key-File-"],
    spansLines: true,
    accept: puttyPrivateLinesFollow
  },
  {
    kind: "gcp-service-account-key",
    pattern: /"private_key_id"[ \t]{0,4}:[ \t]{0,4}"[0-9a-f]{40}"/g,
    triggers: ["\"private_key_id\""],
    spansLines: true,
  },
]
