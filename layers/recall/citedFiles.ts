/**
 * Staleness by content, the I/O half: each project file a recalled memory cites (src/recall/citedPaths.ts, at most
 * RECALL_CITED_PATHS_MAX per memory) is resolved through its symlinks and stat-ed, never read. A file whose real path
 * leaves the project root is not looked at further and never reported. A file that does not exist (its nearest
 * existing folder inside the root) is "gone"; one whose mtime is later than the memory file's is "changed" (the
 * memory's own mtime is its last write: no hash is recorded at write time, since the main agent writes memory with
 * Pi's own tools). Any other failure says nothing: a note is given only for what was seen.
 */
import * as Effect from "effect/Effect"
import { dirname, relative, isAbsolute, sep } from "node:path"
import { RECALL_CITED_PATHS_MAX } from "../../src/limits.ts"
import { type CitedCheck, citedPaths } from "../../src/recall/citedPaths.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

type Seen = "gone" | "changed" | "same" | "unknown"

export const makeCitedCheck = (fs: FileSystemShape) => {
  /** The nearest existing folder above a missing path, resolved; undefined when none is found inside the root. */
  const existingParent = (root: string, path: string): Effect.Effect<string | undefined> =>
    Effect.gen(function* () {
      for (let dir = dirname(path); inside(root, dir); dir = dirname(dir)) {
        const real = yield* fs.realpath(dir).pipe(Effect.either)
        if (real._tag === "Right") return real.right
        if (real.left.reason !== "NotFound" && real.left.reason !== "NotADirectory") return undefined
        if (dir === root) return undefined
      }
      return undefined
    })

  const one = (root: string, realRoot: string, path: string, memoryMtimeMs: number): Effect.Effect<Seen> =>
    Effect.gen(function* () {
      const real = yield* fs.realpath(path).pipe(Effect.either)
      if (real._tag === "Left") {
        if (real.left.reason !== "NotFound" && real.left.reason !== "NotADirectory") return "unknown"
        const parent = yield* existingParent(root, path)
        return parent !== undefined && inside(realRoot, parent) ? "gone" : "unknown"
      }
      if (!inside(realRoot, real.right)) return "unknown"
      const info = yield* fs.stat(real.right).pipe(Effect.either)
      if (info._tag === "Left") return "unknown"
      return info.right.mtimeMs > memoryMtimeMs ? "changed" : "same"
    })

  /** What `text` (a memory written at `memoryMtimeMs`) cites of the project at `root`, checked now. */
  return Effect.fnUntraced(function* (root: string, text: string, memoryMtimeMs: number) {
    const cited = citedPaths(text, root, RECALL_CITED_PATHS_MAX)
    if (cited.length === 0) return { gone: [], changed: [] } satisfies CitedCheck
    const realRoot = yield* fs.realpath(root).pipe(Effect.orElseSucceed(() => undefined))
    if (realRoot === undefined) return { gone: [], changed: [] } satisfies CitedCheck
    const gone: Array<string> = []
    const changed: Array<string> = []
    for (const c of cited) {
      const seen = yield* one(root, realRoot, c.path, memoryMtimeMs)
      if (seen === "gone") gone.push(c.shown)
      else if (seen === "changed") changed.push(c.shown)
    }
    return { gone, changed } satisfies CitedCheck
  })
}
