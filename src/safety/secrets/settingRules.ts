/**
 * Rules for secret-named settings in any syntax (YAML, .env, Markdown labels, code, JSON, XML, HCL, block scalars,
 * command-line flags, `echo VALUE > master.key`) and for a password or token stated in prose. All generic: the name
 * must say secret (names.ts) and the value must look like one (values.ts). In scan order.
 */
import { secretNameStrength } from "./names.ts"
import { preceding, type Rule } from "./rule.ts"
import { looksLikeSecretValue, strictSecretValue } from "./values.ts"

/** Words one of which every secret-named setting holds (see STRONG_TAILS and `key`). */
const SECRET_NAME_WORD = /pass|pwd|pw|secret|token|key|cred|auth|pat/gi

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

export const SETTING_RULES: ReadonlyArray<Rule> = [
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
    spansLines: true,
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
