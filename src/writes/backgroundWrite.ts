/**
 * What a background task may publish into one memory file, checked on the file's whole new content (a write's
 * content, an edit's result) before anything is written. Pure.
 *
 * - Size: at most 32 KiB of UTF-8. Recall injects a topic's first 4 KiB, and a task must be able to read a file it
 *   changes in one page of the background `read` (50 KiB), so a larger file would be neither recalled nor safely
 *   editable; and whatever a task writes is sent to the model again in its next request.
 * - Header: every topic file (any `.md` file but the top-level `MEMORY.md`, the index, which has none) starts with
 *   frontmatter holding a `name`, a `description` and a type (`metadata.type`, or a top-level `type`) that is one of
 *   the four.
 */
import { parseFrontmatter } from "../memory/frontmatter.ts"
import { RECALL_MAX_BYTES } from "../limits.ts"
import { grouped } from "../memory/counts.ts"

export const BACKGROUND_WRITE_MAX_BYTES = 32 * 1024

export const INDEX_FILE = "MEMORY.md"

const HEADER_EXAMPLE = "---\nname: short-topic-name\ndescription: one line saying when this memory matters\nmetadata:\n  type: project\n---"

/**
 * Why this content may not be published by a background task at `file` (its path relative to the memory directory,
 * with `/`), or undefined when it may.
 */
export const backgroundWriteRefusal = (file: string, content: string): string | undefined => {
  const bytes = Buffer.byteLength(content, "utf8")
  if (bytes > BACKGROUND_WRITE_MAX_BYTES) {
    return `Refused: ${file} would be ${grouped(bytes)} bytes; a background task may write at most ${grouped(BACKGROUND_WRITE_MAX_BYTES)} bytes into one memory file. Keep the file short (recall shows only its first ${grouped(RECALL_MAX_BYTES)} bytes): move details into a separate topic, or leave them out. Nothing was written.`
  }
  if (file === INDEX_FILE) return undefined
  const fm = parseFrontmatter(content)
  const missing = !fm.hasFrontmatter
    ? ["frontmatter"]
    : fm.problem !== undefined
    ? [`a readable header (${fm.problem})`]
    : [
      ...(fm.name === undefined || fm.name === "" ? ["name"] : []),
      ...(fm.description === undefined || fm.description === "" ? ["description"] : []),
      ...(fm.type === undefined
        ? [fm.unknownType !== undefined ? `a known type ("${fm.unknownType}" is not user, feedback, project or reference)` : "metadata.type"]
        : [])
    ]
  if (missing.length === 0) return undefined
  return `Refused: ${file} is a topic file and needs ${missing.join(", ")}. Start it with a header like this, then the memory itself:\n${HEADER_EXAMPLE}\nNothing was written.`
}
