/**
 * `/memory review [approve ID | drop ID]`: the background writes held for the person's review (their words came from
 * outside text, or read as an instruction to do something risky), listed with id, file, source, reason and content;
 * approve saves one as memory (journaled: `/memory undo` takes it back), drop discards it. Formatting only; the work
 * is MemoryBrowse's (layers/memory/topicReview.ts).
 */
import type * as Effect from "effect/Effect"
import type { MemoryBrowse } from "../layers/memory/MemoryBrowse.ts"
import type { HeldItem } from "../src/writes/held.ts"

type Browse = <A>(f: (b: typeof MemoryBrowse.Service) => Effect.Effect<A, unknown>) => Promise<A | undefined>

export const REVIEW_USAGE = "Usage: /memory review (list the held writes), /memory review approve ID, or /memory review drop ID"

const heldText = (item: HeldItem): string =>
  [
    `${item.id}  ${item.file}  (held ${item.at})`,
    `  Source: ${item.source}`,
    `  Why:    ${item.reason}`,
    ...item.content.replace(/\n$/, "").split("\n").map((l) => `  | ${l}`)
  ].join("\n")

/** What `/memory review` says, or undefined when browsing failed (already reported). */
export const reviewCommand = async (
  rest: ReadonlyArray<string>,
  location: { readonly memoryDir: string; readonly memoryRootDir: string },
  session: string | null,
  browse: Browse
): Promise<{ readonly text: string; readonly level: "info" | "warning" } | undefined> => {
  const [action, id, ...extra] = rest
  if (action === undefined) {
    const items = await browse((b) => b.held(location.memoryRootDir))
    if (items === undefined) return undefined
    if (items.length === 0) return { text: "No background write is held for review.", level: "info" }
    return {
      text: [
        `${items.length} background write${items.length === 1 ? " is" : "s are"} held for review: not memory, never recalled, until approved.`,
        ...items.map(heldText),
        "/memory review approve ID saves one as memory (/memory undo takes it back); /memory review drop ID discards it."
      ].join("\n\n"),
      level: "info"
    }
  }
  if ((action !== "approve" && action !== "drop") || id === undefined || extra.length > 0) return { text: REVIEW_USAGE, level: "warning" }
  if (action === "drop") {
    const item = await browse((b) => b.drop(location.memoryRootDir, id))
    return item === undefined ? undefined : { text: `Dropped ${item.id} (${item.file}); memory was not changed.`, level: "info" }
  }
  const result = await browse((b) => b.approve({ memoryDir: location.memoryDir, rootDir: location.memoryRootDir, id, session }))
  return result === undefined
    ? undefined
    : { text: `Approved ${result.item.id}: saved ${result.files.join(", ")} (task ${result.task}; /memory undo takes it back).`, level: "info" }
}
