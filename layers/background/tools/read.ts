/**
 * The background `read`: Pi's own read tool, behind the protected-path check, that records what the model saw as
 * the writer's read baseline for the file (a later write or edit is judged against it). The baseline is recorded
 * only when the file did not move under the read; otherwise the read counts as one of an image (no baseline text).
 * It opens only regular files: a device, FIFO, socket or folder is refused before Pi's read runs (its real path
 * is looked at, so a link to one is refused too). A whole read of a file the model already holds word for word (the
 * index in a fork's system prompt) answers with a pointer to that text instead of repeating it. It never changes a
 * file.
 */
import type { Stats } from "node:fs"
import { readFile, realpath, stat } from "node:fs/promises"
import { homedir } from "node:os"
import { HELD_INDEX_MAX_ADDED_SHARE } from "../../../src/limits.ts"
import { resolveToolPath } from "../../../src/safety/toolPath.ts"
import type { ToolContext } from "./toolContext.ts"
import { errorResult, type ToolBody, viaPi } from "./taskTool.ts"

/** What a path is when it is not a regular file (undefined for a regular file). */
export const notRegular = (s: Stats): string | undefined =>
  s.isFile()
    ? undefined
    : s.isDirectory()
    ? "a folder"
    : s.isFIFO()
    ? "a FIFO (named pipe)"
    : s.isSocket()
    ? "a socket"
    : s.isCharacterDevice() || s.isBlockDevice()
    ? "a device"
    : "not a regular file"

/** What the model is told when it asks to read something that is not a regular file. */
export const notRegularRefusal = (path: string, kind: string): string =>
  `Refused: ${path} is ${kind}, and read opens only regular files; list a folder with bash (ls), and read the files in it.`

/**
 * What a whole read of the index returns when the model already holds its text (a fork's system prompt), word for
 * word or with lines added since: a pointer to that text and the added lines, instead of every line again, uncached,
 * on each call that follows (the index of a large memory is thousands of tokens). Undefined when the file is not the
 * held text with lines added only (a line changed or removed, bytes that are not UTF-8): then it is read as usual.
 */
export const heldTextAnswer = (path: string, bytes: Buffer, known: string | undefined): string | undefined => {
  if (known === undefined) return undefined
  const text = bytes.toString("utf8")
  if (!Buffer.from(text, "utf8").equals(bytes)) return undefined
  const held = known.trimEnd().split("\n")
  const now = text.trimEnd().split("\n")
  const pointer = `${path} (${now.length} line${now.length === 1 ? "" : "s"}) is the memory index already in your instructions ` +
    "(the auto_memory_index section)"
  const tail = "It counts as read: edit it against that text."
  if (text.trimEnd() === known.trimEnd()) return `${pointer}, word for word, so it is not repeated here. ${tail}`
  // Lines added only: every held line is still there, in order, and each new line is placed after its predecessor.
  const added: Array<string> = []
  let h = 0
  for (let n = 0; n < now.length; n++) {
    if (h < held.length && now[n] === held[h]) {
      h++
      continue
    }
    added.push(n === 0 ? `- before its first line: ${now[n]}` : `- after \`${now[n - 1]}\`: ${now[n]}`)
  }
  if (h < held.length || added.length === 0 || added.length > now.length * HELD_INDEX_MAX_ADDED_SHARE) return undefined
  return `${pointer}, with ${added.length} line${added.length === 1 ? "" : "s"} added since, each after the line named:\n${added.join("\n")}\n${tail}`
}

export const makeReadTool = ({ pi, cwd, writer, runtime, paths, knownText }: ToolContext) => {
  const definition = pi.createReadToolDefinition(cwd)
  const execute: ToolBody = async (id, args, signal) => {
    const refused = await paths.refusePath(args["path"])
    if (refused !== undefined) return refused
    const raw = typeof args["path"] === "string" ? args["path"] : ""
    const absolute = resolveToolPath(raw, cwd, homedir())
    // Only a regular file is read: a device or a FIFO would never end (or never start), a folder is no file.
    const kind = absolute === undefined ? undefined : await realpath(absolute).then((real) => stat(real)).then(notRegular, () => undefined)
    if (kind !== undefined) return errorResult(notRegularRefusal(raw, kind))
    const before = absolute === undefined ? undefined : await stat(absolute).catch(() => undefined)
    const result = await viaPi(definition)(id, args, signal)
    if (absolute === undefined || result.isError === true) return result
    const image = result.content.some((c) => c.type === "image") ||
      result.content.some((c) => c.type === "text" && c.text.startsWith("Read image file"))
    const truncated = (result.details as { truncation?: { truncated?: boolean } } | undefined)?.truncation?.truncated === true
    const offset = typeof args["offset"] === "number" ? args["offset"] : undefined
    const limit = typeof args["limit"] === "number" ? args["limit"] : undefined
    const outcome = image
      ? { kind: "image" as const }
      : { kind: "text" as const, truncated, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) }
    // The baseline is what the tool saw only if the file did not move under the read; otherwise none is recorded.
    const after = await stat(absolute).catch(() => undefined)
    const bytes = after === undefined ? undefined : await readFile(absolute).catch(() => undefined)
    const steady = before !== undefined && after !== undefined && bytes !== undefined &&
      before.mtimeMs === after.mtimeMs && before.size === after.size && before.ino === after.ino
    await runtime.runEffect(
      steady
        ? writer.recordRead(absolute, outcome, { bytes, mtimeMs: after.mtimeMs })
        : writer.recordRead(absolute, { kind: "image" })
    )
    // A whole, steady read of what the request already holds: a pointer (and the lines added since) instead of the text.
    const answer = steady && !image && !truncated && offset === undefined && limit === undefined
      ? heldTextAnswer(raw, bytes, knownText?.(absolute))
      : undefined
    return answer === undefined ? result : { content: [{ type: "text", text: answer }], details: result.details }
  }
  return { definition, execute }
}
