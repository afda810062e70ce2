/**
 * Topics by name, and the index's links to them: finding a topic by the name a person types (`pm show|forget`,
 * `/memory show|forget`), which topics the index links, and the links a new index adds to topics that do not exist.
 * (The index without a topic's lines is src/memory/indexBytes.ts's: forget works on bytes.) Pure.
 */
import { indexLinkTargets } from "./indexLinks.ts"

export interface NamedTopic {
  /** Path relative to the memory directory, `/`-separated. */
  readonly filename: string
  /** The frontmatter `name`, when there is one. */
  readonly name: string | undefined
}

/** Why a name given to `show` or `forget` does not denote a topic. */
export type NameProblem = "outside-memory" | "index" | "unknown"

export type NameResolution =
  | { readonly _tag: "Found"; readonly filename: string }
  | { readonly _tag: "Refused"; readonly name: string; readonly problem: NameProblem; readonly reason: string }

/** A link target as a file name: `./` dropped, percent-escapes (spaces, parentheses) decoded. */
export const decodeTarget = (target: string): string => {
  let decoded = target
  try {
    decoded = decodeURIComponent(target)
  } catch {
    // A lone `%` is a literal character of the name.
  }
  return decoded.replace(/^(?:\.\/)+/, "")
}

/** The files the index links, as file names relative to the memory directory. */
export const indexLinkedFiles = (index: string): ReadonlySet<string> => new Set(indexLinkTargets(index).map(decodeTarget))

/**
 * Topic files a new index links that the old one did not and that do not exist: an index line for a topic that was
 * never written (its write failed or was refused). Links elsewhere (URLs, anchors) are not topics.
 */
export const newDanglingLinks = (before: string, after: string, exists: (file: string) => boolean): ReadonlyArray<string> => {
  const old = indexLinkedFiles(before)
  return [...indexLinkedFiles(after)].filter((f) => !old.has(f) && f.endsWith(".md") && !f.includes("://") && !f.startsWith("/") && !exists(f))
}

/**
 * NAME is a file name with or without `.md`, or a frontmatter name (case-insensitive when nothing matches exactly).
 * A name that leaves the memory directory (absolute, `..`) is refused with a reason, as is the index itself.
 */
export const resolveTopicName = (raw: string, topics: ReadonlyArray<NamedTopic>): NameResolution => {
  const name = raw.trim().replace(/\\/g, "/")
  const refuse = (problem: NameProblem, reason: string): NameResolution => ({ _tag: "Refused", name: raw, problem, reason })
  if (name === "") return refuse("unknown", "an empty name is not a topic")
  if (name.startsWith("/") || /^[A-Za-z]:\//.test(name) || name.split("/").includes("..") || name.startsWith("~")) {
    return refuse("outside-memory", `${raw} is outside the memory directory; only topic files inside it can be named`)
  }
  const relative = name.replace(/^(?:\.\/)+/, "")
  if (relative === "MEMORY.md" || relative === "MEMORY") {
    return refuse("index", "MEMORY.md is the index, not a topic; its lines go when their topics are forgotten")
  }
  const files = topics.map((t) => t.filename)
  for (const candidate of [relative, `${relative}.md`]) if (files.includes(candidate)) return { _tag: "Found", filename: candidate }
  const byName = topics.filter((t) => t.name === name)
  if (byName.length === 1) return { _tag: "Found", filename: byName[0]!.filename }
  const lower = relative.toLowerCase()
  const loose = topics.filter(
    (t) => t.filename.toLowerCase() === lower || t.filename.toLowerCase() === `${lower}.md` || t.name?.toLowerCase() === lower
  )
  if (loose.length === 1) return { _tag: "Found", filename: loose[0]!.filename }
  if (byName.length > 1 || loose.length > 1) {
    const all = (byName.length > 1 ? byName : loose).map((t) => t.filename).join(", ")
    return refuse("unknown", `${raw} names more than one topic (${all}); give the file name`)
  }
  return refuse("unknown", `no topic named ${raw} (give a file name from \`pm list\` or a frontmatter name)`)
}
