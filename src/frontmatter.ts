/**
 * Topic frontmatter: gray-matter with the `yaml` engine (YAML 1.2 core: dates stay strings, unique keys enforced),
 * executable engines disabled, a fresh options object on every call (gray-matter caches by content otherwise).
 * Never throws: every malformed header becomes a typed problem and an empty header.
 */
import matter from "gray-matter"
import * as Schema from "effect/Schema"
import { parse as parseYaml } from "yaml"

export const MemoryType = Schema.Literal("user", "feedback", "project", "reference")
export type MemoryType = typeof MemoryType.Type
const isMemoryType = Schema.is(MemoryType)

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

const refuse = (): never => {
  throw new Error("executable frontmatter engines are disabled")
}

const engines = {
  yaml: {
    parse: (input: string): object => parseYaml(input, { uniqueKeys: true, schema: "core" }) as object,
    stringify: (): string => refuse()
  },
  js: { parse: refuse, stringify: refuse },
  javascript: { parse: refuse, stringify: refuse }
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

/** Input is already normalised text (BOM removed by the decoder or here). */
export const parseFrontmatter = (raw: string): Frontmatter => {
  const source = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")
  if (!/^---[^\S\n]*(\n|$)/.test(source)) {
    // "---js" and friends are not a yaml fence; refuse them as a header rather than evaluate them.
    const problem = /^---\S/.test(source) ? "frontmatter language other than YAML is not allowed" : undefined
    return empty(source, false, problem)
  }
  if (!/\n---[^\S\n]*(\n|$)/.test(source.slice(3))) {
    return empty(source, true, "frontmatter fence is not closed")
  }
  let data: unknown
  let body: string
  try {
    const parsed = matter(source, { engines, language: "yaml" })
    data = parsed.data
    body = parsed.content
  } catch (error) {
    return empty(source, true, `frontmatter is not valid YAML: ${firstLine(error)}`)
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
