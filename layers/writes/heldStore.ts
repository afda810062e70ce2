/**
 * The held writes of one memory root (`memory-roots/<hash>/held/`, src/writes/held.ts): add one (refused past
 * HELD_MAX_ITEMS), list them oldest first, find one by id, remove one. Each item is written to a temp file and
 * renamed into place, so a reader sees all of it or nothing; a file that does not decode is skipped by `list`.
 * Through FileSystem, so tests can give a faulty one. Nothing here writes to the memory folder.
 */
import * as Effect from "effect/Effect"
import { join } from "node:path"
import { HELD_MAX_ITEMS } from "../../src/limits.ts"
import { decodeHeld, encodeHeld, HELD_DIR, type HeldItem, heldFileName, isHeldFileName } from "../../src/writes/held.ts"
import { newTempName } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { FsError } from "../storage/FsError.ts"

export const heldDirOf = (rootDir: string): string => join(rootDir, HELD_DIR)

export interface HeldStore {
  /** Oldest first; files that do not decode are left out. An absent folder holds nothing. */
  readonly list: (rootDir: string) => Effect.Effect<ReadonlyArray<HeldItem>>
  /** "full" when HELD_MAX_ITEMS already wait (nothing written then). */
  readonly add: (rootDir: string, item: HeldItem) => Effect.Effect<"held" | "full", FsError>
  readonly find: (rootDir: string, id: string) => Effect.Effect<HeldItem | undefined>
  /** True when it was there. */
  readonly remove: (rootDir: string, id: string) => Effect.Effect<boolean, FsError>
}

const decoder = new TextDecoder()

export const makeHeldStore = (fs: FileSystemShape, max: number = HELD_MAX_ITEMS): HeldStore => {
  const list = (rootDir: string) =>
    Effect.gen(function*() {
      const dir = heldDirOf(rootDir)
      const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => []))
      const names = entries.filter((e) => e.kind === "file" && isHeldFileName(e.name)).map((e) => e.name)
      const items = yield* Effect.forEach(names, (name) =>
        fs.readRegularFile(join(dir, name), 1024 * 1024).pipe(
          Effect.map((r) => decodeHeld(decoder.decode(r.bytes))),
          Effect.orElseSucceed(() => undefined)
        ))
      return items.filter((i): i is HeldItem => i !== undefined).sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id))
    })

  const add = (rootDir: string, item: HeldItem) =>
    Effect.gen(function*() {
      const present = yield* list(rootDir)
      if (present.some((p) => p.id === item.id)) return "held" as const
      if (present.length >= max) return "full" as const
      const dir = heldDirOf(rootDir)
      yield* fs.makeDirectory(dir, { recursive: true })
      const temp = join(dir, newTempName())
      yield* fs.writeFile(temp, encodeHeld(item), { flag: "wx", flush: true })
      yield* fs.rename(temp, join(dir, heldFileName(item.id))).pipe(
        Effect.tapError(() => fs.unlink(temp).pipe(Effect.ignore))
      )
      return "held" as const
    })

  const find = (rootDir: string, id: string) => list(rootDir).pipe(Effect.map((items) => items.find((i) => i.id === id)))

  const remove = (rootDir: string, id: string) =>
    fs.unlink(join(heldDirOf(rootDir), heldFileName(id))).pipe(
      Effect.as(true),
      Effect.catchTag("FsError", (e) => (e.reason === "NotFound" ? Effect.succeed(false) : Effect.fail(e)))
    )

  return { list, add, find, remove }
}
