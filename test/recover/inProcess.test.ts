/**
 * A person's command that fails part way in its own process (the file system refusing its last write): whole or
 * absent. What it did is rolled back before it returns, and it says nothing was saved or forgotten; when even the
 * roll-back cannot be done, it says so, leaves its marker, and the next command rolls it back first.
 */
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeMemoryBrowse } from "../../layers/memory/MemoryBrowse.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import type { FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { undoUnderLocks } from "../../layers/writes/MemoryUndo.ts"
import { type Env, freshMemory, memoryFiles, run, tempFiles } from "./recoverSupport.ts"
import { INITIAL, REMEMBERED, scenarioLayer } from "./recoverScenarios.ts"

const real = makeNodeFileSystem()
const eio = (op: string, path: string) => Effect.fail(new FsError({ op, path, reason: "InputOutput", detail: "EIO" }))

/**
 * The real file system, except that publishing MEMORY.md fails; with `thenStuck`, once it has failed every rename and
 * unlink in memory fails too (the roll-back cannot be done either).
 */
const failingIndex = (env: Env, thenStuck = false): FileSystemShape => {
  let failed = false
  const inMemory = (path: string) => path.startsWith(env.memoryDir) || path.startsWith("/proc/self/fd/")
  return withOverrides(real, {
    rename: (from, to) => {
      if (to.endsWith("/MEMORY.md") && !failed) {
        failed = true
        return eio("rename", to)
      }
      return failed && thenStuck && inMemory(to) ? eio("rename", to) : real.rename(from, to)
    },
    unlink: (path) => (failed && thenStuck && inMemory(path) && !path.includes(".pm-") ? eio("unlink", path) : real.unlink(path))
  })
}

const over = <A, E, R>(fs: FileSystemShape, effect: Effect.Effect<A, E, R>) =>
  Effect.runPromise(effect.pipe(Effect.provide(scenarioLayer(fs))) as Effect.Effect<A, E, never>)

const markers = (env: Env) => (existsSync(join(env.rootDir, "open")) ? readdirSync(join(env.rootDir, "open")) : [])

describe("a person's command failing part way, in its own process", () => {
  it("remember: the topic it saved is taken back, and it says nothing was saved", async () => {
    const env = freshMemory()
    const error = await over(failingIndex(env), Effect.flatMap(makeMemoryBrowse, (b) => b.remember({ ...env, text: REMEMBERED, session: null })).pipe(Effect.flip))
    expect(error.message).toMatch(/^forget failed: nothing was saved: .*input\/output error/)
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
    expect(markers(env)).toEqual([])
    expect(tempFiles(env)).toEqual([])
    // The journal says so: pm undo finds nothing left to undo.
    const undone = await run(Effect.flatMap(Journal, (j) => j.undo(env, { session: null, model: null })).pipe(Effect.flip))
    expect(undone._tag).toBe("NothingToUndo")
  })

  it("forget: the topic it deleted comes back byte for byte, and it says nothing was forgotten", async () => {
    const env = freshMemory()
    const error = await over(failingIndex(env), Effect.flatMap(makeMemoryBrowse, (b) => b.forget({ ...env, names: ["fact-b"], session: null })).pipe(Effect.flip))
    expect(error.message).toMatch(/^forget failed: nothing was forgotten: /)
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
    expect(markers(env)).toEqual([])
  })

  it("undo: the files it had put back return to what the undone task left", async () => {
    const env = freshMemory()
    await run(Effect.flatMap(makeMemoryBrowse, (b) => b.remember({ ...env, text: REMEMBERED, session: null })))
    const remembered = memoryFiles(env.memoryDir)
    const location = { memoryDir: env.memoryDir, memoryRootDir: env.rootDir } as Parameters<typeof undoUnderLocks>[0]
    const error = await over(failingIndex(env), undoUnderLocks(location, { session: null, model: null }).pipe(Effect.flip))
    expect(String(error)).toMatch(/input\/output error/)
    expect(memoryFiles(env.memoryDir)).toEqual(remembered)
    expect(markers(env)).toEqual([])
    // And a later undo, on a working disk, undoes the remember whole.
    await run(undoUnderLocks(location, { session: null, model: null }))
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
  })

  it("when the roll-back fails too: it says so, its marker stays, and the next command rolls it back first", async () => {
    const env = freshMemory()
    const error = await over(
      failingIndex(env, true),
      Effect.flatMap(makeMemoryBrowse, (b) => b.remember({ ...env, text: REMEMBERED, session: null })).pipe(Effect.flip)
    )
    expect(error.message).toMatch(/memory was left part changed, and the next change of memory rolls it back/)
    expect(markers(env)).toHaveLength(1)
    const told: Array<string> = []
    const result = await run(
      Effect.flatMap(makeMemoryBrowse, (b) =>
        b.forget({ ...env, names: ["fact-a"], session: null, onRecovered: (line) => Effect.sync(() => void told.push(line)) }))
    )
    expect(result.forgotten).toEqual(["fact-a.md"])
    expect(told).toHaveLength(1)
    expect(told[0]).toMatch(/^a remember \(remember-[0-9a-f-]+\) was interrupted earlier; it was rolled back \(1 file put back\)\.$/)
    const { "fact-a.md": _gone, ...rest } = INITIAL
    expect(memoryFiles(env.memoryDir)).toEqual({ ...rest, "MEMORY.md": INITIAL["MEMORY.md"]!.replace("- [fact a](fact-a.md) - about fact a\n", "") })
    expect(markers(env)).toEqual([])
    expect(tempFiles(env)).toEqual([])
  })
})
