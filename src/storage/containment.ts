/**
 * Write containment for memory files: the lexical rules (pure). layers/writes/MemoryWriter.ts resolves links and applies
 * them to the real locations. Every rejection carries a rule and a message telling the model what to do instead.
 */
import { isAbsolute, relative, sep } from "node:path"

/** Longest file name most file systems accept, in UTF-8 bytes. */
export const NAME_MAX_BYTES = 255
/** Longest path accepted, in UTF-8 bytes (Linux PATH_MAX). */
export const PATH_MAX_BYTES = 4_096
export const INDEX_FILE_NAME = "MEMORY.md"

export type ContainmentRule =
  | "invalid-path"
  | "name-too-long"
  | "not-markdown"
  | "protected-directory"
  | "outside-memory"
  | "index-delete"
  | "not-a-file"
  | "broken-link"
  | "invalid-name"
  | "path-changed"

export interface Violation {
  readonly rule: ContainmentRule
  readonly message: string
}

const bytes = (s: string): number => Buffer.byteLength(s, "utf8")

/** Checks on the path exactly as the model passed it. */
export const checkRawPath = (raw: string, options: { readonly requireAbsolute: boolean }): Violation | undefined => {
  if (raw.length === 0) {
    return { rule: "invalid-path", message: "The path is empty. Pass the absolute path of a .md file in the memory directory." }
  }
  if (raw.includes("\u0000")) {
    return { rule: "invalid-path", message: "The path contains a NUL character. Pass a plain file path." }
  }
  if (bytes(raw) > PATH_MAX_BYTES) {
    return {
      rule: "invalid-path",
      message: `The path is ${bytes(raw)} bytes long; at most ${PATH_MAX_BYTES} are accepted. Use a shorter path.`
    }
  }
  if (options.requireAbsolute && !isAbsolute(raw)) {
    return { rule: "invalid-path", message: `${raw} is relative. Pass an absolute path inside the memory directory.` }
  }
  return undefined
}

/** The file name: lowercase `.md` extension, a stem, and a length the file system takes. */
export const checkFileName = (name: string, shown: string): Violation | undefined => {
  if (bytes(name) > NAME_MAX_BYTES) {
    return {
      rule: "name-too-long",
      message: `The file name is ${bytes(name)} bytes long; at most ${NAME_MAX_BYTES} are accepted. Choose a shorter name.`
    }
  }
  if (!name.endsWith(".md") || name.length <= 3) {
    const lower = name.toLowerCase()
    const hint = lower.endsWith(".md") && lower.length > 3
      ? ` Use the lowercase extension: ${name.slice(0, -3)}.md.`
      : " Memory files are Markdown files named like topic-name.md."
    return { rule: "not-markdown", message: `${shown} is not a .md file (lowercase extension required).${hint}` }
  }
  return undefined
}

/** Segments of `target` below `root`, or undefined when `target` is not strictly inside `root`. */
export const segmentsInside = (root: string, target: string): ReadonlyArray<string> | undefined => {
  const rel = relative(root, target)
  if (rel === "") return []
  if (rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel)) return undefined
  return rel.split(sep)
}

/** DECISIONS D7: any segment starting with `.` (such as `.git`) is protected. */
export const checkSegments = (segments: ReadonlyArray<string>, shown: string): Violation | undefined => {
  const hidden = segments.find((s) => s.startsWith("."))
  return hidden === undefined ? undefined : {
    rule: "protected-directory",
    message: `${shown} is under "${hidden}": names starting with "." are protected in the memory directory. ` +
      "Write topic files in the memory directory itself or in a plain subdirectory."
  }
}

export const outsideMemory = (
  shown: string,
  resolved: string,
  memoryDir: string,
  cwd: string | undefined
): Violation => ({
  rule: "outside-memory",
  message: `${shown} resolves to ${resolved}, outside the memory directory ${memoryDir}.` +
    (cwd === undefined ? "" : ` Relative paths resolve against the working directory ${cwd}.`) +
    ` Pass an absolute path inside ${memoryDir}.`
})

export const indexDelete = (shown: string): Violation => ({
  rule: "index-delete",
  message: `${shown} is the memory index and cannot be deleted. Edit it to remove entries instead.`
})

export const notAFile = (shown: string, kind: string): Violation => ({
  rule: "not-a-file",
  message: `${shown} is a ${kind}, not a regular file. Pass the path of a .md file.`
})

export const brokenLink = (shown: string): Violation => ({
  rule: "broken-link",
  message: `${shown} is a symbolic link whose target does not exist. Write to a regular file path instead.`
})

/** Characters no name under the memory directory may hold, with the reason shown to the model. */
const forbiddenCharacter = (ch: string): string | undefined => {
  const code = ch.codePointAt(0)!
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return "a control character"
  if ("*?[]{}".includes(ch)) return "a glob character, which the shell expands as a pattern"
  if (ch === "\\") return "a backslash, which the shell reads as an escape"
  if (/\s/u.test(ch)) return "whitespace"
  if (/[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u.test(ch)) {
    return "an invisible or direction-changing character"
  }
  return undefined
}

const codeOf = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`

const NAME_ADVICE = 'Use letters, digits, "-", "_" and ".", starting with a letter or digit, like "deploy-notes.md".'

/**
 * Names under the memory directory that programs or the shell could read as something else (issue: file names that
 * turn a read-only command into an exploit): a leading "-", "+" or "=" (options, `+N` operands, zsh `=cmd`), control
 * characters (C0, DEL, C1: newlines and carriage returns included), glob and brace characters, backslashes, any
 * whitespace, and invisible or bidi format characters. Applies to every segment below the memory directory.
 */
export const checkNameRules = (segments: ReadonlyArray<string>, shown: string): Violation | undefined => {
  for (const segment of segments) {
    const first = segment[0]
    if (first === "-" || first === "+" || first === "=") {
      return {
        rule: "invalid-name",
        message: `${JSON.stringify(segment)} in ${JSON.stringify(shown)} starts with "${first}", which programs read as ` +
          `an option or operator. ${NAME_ADVICE}`
      }
    }
    for (const ch of segment) {
      const why = forbiddenCharacter(ch)
      if (why !== undefined) {
        return {
          rule: "invalid-name",
          message: `${JSON.stringify(segment)} in ${JSON.stringify(shown)} contains ${why} (${codeOf(ch)}). ${NAME_ADVICE}`
        }
      }
    }
  }
  return undefined
}

export const pathChanged = (shown: string, what: string): Violation => ({
  rule: "path-changed",
  message: `${shown}: ${what} changed while this change was being made (another program is moving files in the ` +
    "memory directory). Nothing was changed. Check the path and try again."
})
