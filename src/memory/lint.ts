/**
 * Lint: the post-write check for topic files and the index (also `pm lint`). Each problem has a stable `code`.
 * Pure: callers pass the file name (relative to the memory directory) and its content.
 */
import { parseFrontmatter } from "./frontmatter.ts"
import { indexLinkTargets } from "./indexLinks.ts"
import { recallWindow } from "./topicWindow.ts"
import { detectSecrets, secretLabel } from "../safety/secrets.ts"
import { riskyActLabel, riskyInstructions } from "../safety/riskyActs.ts"
import {
  DESCRIPTION_MAX_CHARS,
  INDEX_LINE_MAX_CHARS,
  INDEX_MAX_LINES,
  INDEX_MAX_UNITS,
  RECALL_MAX_BYTES,
  RECALL_MAX_LINES
} from "../limits.ts"

/** Every code a lint problem can carry (docs/configuration.md lists them; a test keeps the two in step). */
export const LINT_CODES = [
  "recall-window-over",
  "recall-window-near",
  "continuation-name",
  "frontmatter-missing",
  "frontmatter-invalid",
  "description-missing",
  "description-too-long",
  "type-unknown",
  "index-too-long",
  "index-line-too-long",
  "index-line-not-link",
  "index-link-missing",
  "topic-not-indexed",
  "description-cut-by-comment",
  "file-unreadable",
  "secret",
  "risky-instruction"
] as const

export type LintCode = (typeof LINT_CODES)[number]

export interface LintProblem {
  readonly code: LintCode
  readonly message: string
}

/** "Near" the recall window: 80% of either limit, the same share the backfill keeps of the index window. */
export const NEAR_LINES = Math.floor(RECALL_MAX_LINES * 0.8)
export const NEAR_BYTES = Math.floor(RECALL_MAX_BYTES * 0.8)

const CONTINUATION = /^(.*)-\d+\.md$/

/**
 * `notes-2.md` beside `notes.md` (or `notes-3.md`) continues a topic; `python-3.md` alone names its subject. Without
 * the folder's listing there is no evidence either way, and nothing is reported.
 */
const continues = (filename: string, siblings: ReadonlyArray<string> | undefined): boolean => {
  const match = CONTINUATION.exec(filename)
  if (match === null || siblings === undefined) return false
  const stem = match[1]!
  return siblings.some((other) => other !== filename && (other === `${stem}.md` || (CONTINUATION.exec(other)?.[1] === stem)))
}

/** One problem per credential-looking finding: the kind and the line, never the value. */
const secretProblems = (filename: string, content: string): Array<LintProblem> =>
  detectSecrets(content).map((f) => ({
    code: "secret",
    message: `${filename} line ${f.line} looks like it holds ${secretLabel(f.kind)}. Memory is loaded into every session: remove or redact it, and describe where the credential lives instead of its value.`
  }))

/**
 * One problem per line that reads as an instruction to do a risky act (src/safety/riskyActs.ts): recalled into a
 * session, such a memory could be taken as permission. A person confirms it or rewrites it as a prohibition.
 */
export const riskyProblems = (filename: string, content: string): Array<LintProblem> =>
  // Once per act: a memory's name, description and body often say the same thing.
  riskyInstructions(content).filter((f, i, all) => all.findIndex((g) => g.act === f.act) === i).map((f) => ({
    code: "risky-instruction",
    message: `${filename} line ${f.line} reads as an instruction to do something risky (${riskyActLabel[f.act]}: "${f.quote}"). A memory never authorises that: check where it came from, and remove it or keep it only if you meant it.`
  }))

const baseName = (filename: string): string => filename.slice(filename.lastIndexOf("/") + 1)

/**
 * A plain (unquoted) YAML value ends at ` #`: the rest is a comment. Given the raw header, the description line's
 * value as written when YAML cut it short, else undefined.
 */
export const descriptionCutByComment = (content: string, parsed: string | undefined): string | undefined => {
  const header = /^---\r?\n([\s\S]*?)\r?\n---/.exec(content)?.[1]
  const raw = header === undefined ? undefined : /^description:[ \t]*(.*)$/m.exec(header)?.[1]?.trim()
  if (raw === undefined || raw === "" || /^["'|>]/.test(raw) || !/\s#/.test(raw)) return undefined
  return parsed !== raw ? raw : undefined
}

export const lintTopic = (input: {
  readonly filename: string
  readonly content: string
  /** The file's real size when `content` is only its start (a huge file read with a cap). */
  readonly sizeBytes?: number
  /**
   * The bytes `content` was decoded from, when known: sizes and the recall window are counted on them (a file that
   * is not valid UTF-8 decodes to more bytes than it holds).
   */
  readonly bytes?: Uint8Array
  /** The names of the other files in the same folder, for the continuation check. */
  readonly siblings?: ReadonlyArray<string>
}): ReadonlyArray<LintProblem> => {
  const problems: Array<LintProblem> = []
  const bytes = input.bytes === undefined ? Buffer.from(input.content, "utf8") : Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength)
  const size = Math.max(bytes.length, input.sizeBytes ?? 0)
  const window = recallWindow(bytes)
  const lineCount = input.content === "" ? 0 : input.content.replace(/\n$/, "").split("\n").length
  const lines = size > bytes.length ? `at least ${lineCount}` : `${lineCount}`
  if (window.truncated || (size > bytes.length && size > RECALL_MAX_BYTES)) {
    problems.push({
      code: "recall-window-over",
      message: `${input.filename} is ${lines} lines and ${size} bytes; recall injects only the first ${RECALL_MAX_LINES} lines or ${RECALL_MAX_BYTES} bytes. Move details into a separate topic file with its own description, and keep this one short.`
    })
  } else if (lineCount >= NEAR_LINES || size >= NEAR_BYTES) {
    problems.push({
      code: "recall-window-near",
      message: `${input.filename} is ${lineCount} lines and ${size} bytes, close to the recall window of ${RECALL_MAX_LINES} lines or ${RECALL_MAX_BYTES} bytes. Consider splitting it by subject.`
    })
  }
  if (continues(baseName(input.filename), input.siblings)) {
    problems.push({
      code: "continuation-name",
      message: `${input.filename} looks like a numbered continuation. Name each topic file by its subject and merge continuations into the topic they extend.`
    })
  }
  const fm = parseFrontmatter(input.content)
  if (fm.problem !== undefined) {
    problems.push({ code: "frontmatter-invalid", message: `${input.filename}: ${fm.problem}. Start the file with a YAML header between --- lines.` })
  } else if (!fm.hasFrontmatter) {
    problems.push({
      code: "frontmatter-missing",
      message: `${input.filename} has no frontmatter. Start it with ---, name, description and metadata.type (user, feedback, project or reference), then ---.`
    })
  }
  if (fm.problem === undefined && fm.hasFrontmatter) {
    if (fm.description === undefined || fm.description === "") {
      problems.push({
        code: "description-missing",
        message: `${input.filename} has no description. Add a one-line description: the selector decides on it alone whether to recall this file.`
      })
    } else if (fm.description.length > DESCRIPTION_MAX_CHARS) {
      problems.push({
        code: "description-too-long",
        message: `${input.filename}: the description is ${fm.description.length} characters; keep it at ${DESCRIPTION_MAX_CHARS} or fewer.`
      })
    }
    const cut = descriptionCutByComment(input.content, fm.description)
    if (cut !== undefined) {
      problems.push({
        code: "description-cut-by-comment",
        message: `${input.filename}: YAML reads everything after " #" in the description as a comment, so it is cut short. Quote it: description: ${JSON.stringify(cut)}`
      })
    }
    if (fm.unknownType !== undefined) {
      problems.push({
        code: "type-unknown",
        message: `${input.filename}: type "${fm.unknownType}" is not one of user, feedback, project, reference.`
      })
    }
  }
  problems.push(...secretProblems(input.filename, input.content))
  problems.push(...riskyProblems(input.filename, input.content))
  return problems
}

/** A markdown link `[text](target)`; an index line holds exactly one, optionally after a list marker. */
const LINK = /\[[^\]\n]*\]\([^)\n]*\)/g
const LIST_MARKER = /^\s*(?:[-*+]|\d+[.)])\s+/

/** Link targets of the index, in order (for the missing-target check done where files can be seen): indexLinks.ts. */
export { indexLinkTargets }

export const lintIndex = (content: string): ReadonlyArray<LintProblem> => {
  const problems: Array<LintProblem> = []
  const lines = content.replace(/\r\n?/g, "\n").trim().split("\n")
  if (lines.length > INDEX_MAX_LINES || content.trim().length > INDEX_MAX_UNITS) {
    problems.push({
      code: "index-too-long",
      message: `MEMORY.md is ${lines.length} lines and ${content.trim().length} characters; only ${INDEX_MAX_LINES} lines or ${INDEX_MAX_UNITS} characters are loaded. Shorten the hooks or merge topics.`
    })
  }
  lines.forEach((line, i) => {
    if (line.trim() === "" || /^#{1,6}\s/.test(line)) return
    if (line.length > INDEX_LINE_MAX_CHARS) {
      problems.push({
        code: "index-line-too-long",
        message: `MEMORY.md line ${i + 1} is ${line.length} characters; keep each line at most ${INDEX_LINE_MAX_CHARS}.`
      })
    }
    const links = line.match(LINK) ?? []
    if (links.length !== 1 || !LIST_MARKER.test(line) && !line.trimStart().startsWith("[")) {
      problems.push({
        code: "index-line-not-link",
        message: `MEMORY.md line ${i + 1} is not a single link. Each line should be "- [Title](file.md) - short hook"; put content in topic files.`
      })
    }
  })
  problems.push(...secretProblems("MEMORY.md", content))
  problems.push(...riskyProblems("MEMORY.md", content))
  return problems
}

/** Topics the index does not link (only when there is an index): the selector still sees them, the agent does not. */
export const unindexedTopics = (indexContent: string, topics: ReadonlyArray<string>): ReadonlyArray<LintProblem> => {
  const linked = new Set(indexLinkTargets(indexContent).map((t) => {
    try {
      return decodeURIComponent(t).replace(/^\.\//, "")
    } catch {
      return t.replace(/^\.\//, "")
    }
  }))
  return topics
    .filter((t) => !linked.has(t))
    .map((t) => ({
      code: "topic-not-indexed" as const,
      message: `MEMORY.md does not link ${t}. Add a line for it: - [Title](${t.replace(/[ ()]/g, encodeURIComponent)}) - short hook`
    }))
}
