/**
 * Topic frontmatter: gray-matter with the `yaml` engine (yamlEngine.ts: YAML 1.2 core, dates stay strings, unique
 * keys enforced, executable engines disabled). Never throws: every malformed header becomes a typed problem and an
 * empty header.
 *
 * Most headers are a handful of plain `key: value` lines, and the YAML engine costs ~0.5 ms each on a cold start
 * (a scan reads up to 200). A strict fast path reads exactly those headers and hands anything else to the engine;
 * `test/readpath/frontmatterFastPath.test.ts` checks that both agree on generated headers.
 */
import * as Schema from "effect/Schema"
import { splitWithYaml } from "./yamlEngine.ts"

export const MemoryType = Schema.Literal("user", "feedback", "project", "reference")
export type MemoryType = typeof MemoryType.Type
// A set lookup: the same answer as Schema.is(MemoryType), without a parse per header.
const MEMORY_TYPES: ReadonlySet<string> = new Set(MemoryType.literals)
const isMemoryType = (value: string): value is MemoryType => MEMORY_TYPES.has(value)

export interface Frontmatter {
  readonly name: string | undefined
  readonly description: string | undefined
  /** Known type, or undefined. */
  readonly type: MemoryType | undefined
  /** The raw type text when present but not one of the four. */
  readonly unknownType: string | undefined
  /** `modified` as written, when it parses as a date. */
  readonly modified: string | undefined
  /** Why the header could not be read, when it could not. */
  readonly problem: string | undefined
  readonly hasFrontmatter: boolean
  /** Body after the header. */
  readonly body: string
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value.trim() : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An ISO 8601 date or date-time. Date.parse alone is too lenient: it reads "12" as December 2001. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i

const validDate = (value: string | undefined): string | undefined =>
  value !== undefined && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined

const empty = (body: string, hasFrontmatter: boolean, problem: string | undefined): Frontmatter => ({
  name: undefined,
  description: undefined,
  type: undefined,
  unknownType: undefined,
  modified: undefined,
  problem,
  hasFrontmatter,
  body
})

const TOP_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$/
const NESTED_LINE = /^([ ]+)([A-Za-z_][A-Za-z0-9_-]*):[ ]+(.*)$/
// Plain scalars the core schema reads as something other than a string. Each starts with one of NOT_A_STRING_START,
// so most values are cleared by their first character.
const NOT_A_STRING_START = new Set("~nNtTfF+-.0123456789")
const NOT_A_STRING = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/
// A first character that is a YAML indicator, or anything inside that could end or change a plain scalar.
const UNSAFE_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/
const UNSAFE_INSIDE = /: |:$|\s#|\t|[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/

const notAString = (value: string): boolean => NOT_A_STRING_START.has(value[0]!) && NOT_A_STRING.test(value)

/** Whether a line holds only spaces (or nothing). */
const blank = (line: string): boolean => {
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) !== 0x20) return false
  return true
}

/** A plain one-line scalar that YAML reads as exactly this string (trailing spaces dropped), or undefined. */
const plainString = (value: string): string | undefined => {
  let end = value.length
  while (end > 0 && value.charCodeAt(end - 1) === 0x20) end--
  const trimmed = end === value.length ? value : value.slice(0, end)
  if (trimmed === "" || UNSAFE_START.test(trimmed) || UNSAFE_INSIDE.test(trimmed) || notAString(trimmed)) return undefined
  return trimmed
}

/** A key the line patterns matched (so already of key characters) that YAML reads as a string. */
const plainKey = (key: string): boolean => !notAString(key)

/**
 * The mapping a header of plain `key: value` lines (and one level of `metadata:` children) holds, or undefined
 * when the header uses anything else (quotes, comments, flow or block scalars, continuation lines, duplicate keys).
 */
const parsePlainHeader = (header: string): Record<string, unknown> | undefined => {
  const data: Record<string, unknown> = {}
  let nested: Record<string, string> | undefined
  let nestedIndent: string | undefined
  for (let start = 0; start <= header.length; ) {
    const newline = header.indexOf("\n", start)
    const end = newline === -1 ? header.length : newline
    const line = header.slice(start, end)
    start = end + 1
    if (blank(line)) continue
    const top = TOP_LINE.exec(line)
    if (top !== null) {
      const key = top[1]!
      if (!plainKey(key) || Object.hasOwn(data, key)) return undefined
      nested = undefined
      nestedIndent = undefined
      if (top[2] === undefined || blank(top[2])) {
        if (key !== "metadata") return undefined
        nested = {}
        data[key] = nested
        continue
      }
      const value = plainString(top[2])
      if (value === undefined) return undefined
      data[key] = value
      continue
    }
    const child = NESTED_LINE.exec(line)
    if (child === null || nested === undefined) return undefined
    const [, indent, key, rawValue] = child
    if (nestedIndent === undefined) nestedIndent = indent
    if (indent !== nestedIndent || !plainKey(key!) || Object.hasOwn(nested, key!)) return undefined
    const value = plainString(rawValue!)
    if (value === undefined) return undefined
    nested[key!] = value
  }
  // `metadata:` with no children is null in YAML: leave that to the engine.
  if (nested !== undefined && Object.keys(nested).length === 0) return undefined
  return data
}

/**
 * gray-matter's split of a source that opens with a plain `---` line: the header text up to the first line starting
 * with `---`, and the body after that line's fence (one line break dropped).
 */
const splitFence = (source: string): { readonly header: string; readonly body: string } => {
  const rest = source.slice(3)
  const close = rest.indexOf("\n---")
  if (close === -1) return { header: rest, body: "" }
  let body = rest.slice(close + 4)
  if (body[0] === "\n") body = body.slice(1)
  return { header: rest.slice(0, close), body }
}

/** BOM dropped, CRLF and CR made LF; a source with neither is returned as it is. */
const normalized = (raw: string): string => {
  const source = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  return source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source
}

const OPENING_FENCE = /^---[^\S\n]*(\n|$)/
// Searched from index 3 (lastIndex): the same as testing source.slice(3), without the copy.
const CLOSING_FENCE = /\n---[^\S\n]*(\n|$)/g
const hasClosingFence = (source: string): boolean => {
  CLOSING_FENCE.lastIndex = 3
  return CLOSING_FENCE.test(source)
}

/** Whether the fast path reads this source's header (exported for the test that keeps both paths in step). */
export const takesFastPath = (raw: string): boolean => {
  const source = normalized(raw)
  if (!OPENING_FENCE.test(source) || !hasClosingFence(source)) return false
  const { header } = splitFence(source)
  return !/^\s*$/.test(header) && parsePlainHeader(header) !== undefined
}

/** Input is already normalised text (BOM removed by the decoder or here). */
export const parseFrontmatter = (raw: string): Frontmatter => parseFrontmatterWith(raw, true)

/** The same parse with the YAML engine only: the reference the fast path is tested against. */
export const parseFrontmatterWithYaml = (raw: string): Frontmatter => parseFrontmatterWith(raw, false)

const parseFrontmatterWith = (raw: string, fastPath: boolean): Frontmatter => {
  const source = normalized(raw)
  if (!OPENING_FENCE.test(source)) {
    // "---js" and friends are not a yaml fence; refuse them as a header rather than evaluate them.
    const problem = /^---\S/.test(source) ? "frontmatter language other than YAML is not allowed" : undefined
    return empty(source, false, problem)
  }
  if (!hasClosingFence(source)) {
    return empty(source, true, "frontmatter fence is not closed")
  }
  let data: unknown
  let body: string
  const split = fastPath ? splitFence(source) : undefined
  const plain = split === undefined ? undefined : /^\s*$/.test(split.header) ? undefined : parsePlainHeader(split.header)
  if (split !== undefined && plain !== undefined) {
    data = plain
    body = split.body
  } else {
    try {
      const parsed = splitWithYaml(source)
      data = parsed.data
      body = parsed.body
    } catch (error) {
      return empty(source, true, `frontmatter is not valid YAML: ${firstLine(error)}`)
    }
  }
  if (data === null || data === undefined) return empty(body, true, undefined)
  if (!isRecord(data)) return empty(body, true, "frontmatter is not a mapping")

  const metadata = isRecord(data["metadata"]) ? data["metadata"] : {}
  // Top-level `type` and `modified` move into metadata; an explicit metadata value wins.
  const rawType = text(metadata["type"]) ?? text(data["type"])
  const rawModified = text(metadata["modified"]) ?? text(data["modified"])
  const lowered = rawType?.toLowerCase()
  return {
    name: text(data["name"]),
    description: text(data["description"]),
    type: lowered !== undefined && isMemoryType(lowered) ? lowered : undefined,
    unknownType: lowered !== undefined && !isMemoryType(lowered) ? rawType : undefined,
    modified: validDate(rawModified),
    problem: undefined,
    hasFrontmatter: true,
    body
  }
}

const firstLine = (error: unknown): string => String(error instanceof Error ? error.message : error).split("\n")[0] ?? ""
