/**
 * What one commit takes in: a task that holds both writers' locks (remember, forget, undo, a sync) commits every
 * change in the memory folder; an extraction or a dream, which holds only its own while the other may be writing,
 * commits only the files it changed (a file it made and removed again is no change), and the rest waits.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeHistoryHook } from "../../layers/history/commitHook.ts"
import { initRepo } from "../../layers/history/historyRepo.ts"
import { makeLockService } from "../../layers/storage/LockService.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { tempDir } from "../support/tmp.ts"

const setup = async () => {
  const base = tempDir("pm-scope-")
  const place = { memoryRootDir: join(base, "root"), memoryDir: join(base, "memory") }
  mkdirSync(place.memoryDir, { recursive: true })
  const fs = makeNodeFileSystem()
  await Effect.runPromise(initRepo(fs, place))
  const hook = makeHistoryHook(fs, makeLockService(fs))
  const tracked = () =>
    execFileSync("git", [`--git-dir=${join(place.memoryRootDir, "history.git")}`, "ls-tree", "-r", "--name-only", "HEAD"], { encoding: "utf8" }).trim().split("\n").sort()
  const kept = (kind: string, files: ReadonlyArray<string>, locks: ReadonlyArray<"extract.lock" | "dream.lock">) =>
    Effect.runPromise(hook({ rootDir: place.memoryRootDir, memoryDir: place.memoryDir }, { task: `${kind}-1`, kind, session: "s", model: null }, { files, locks }))
  return { place, tracked, kept }
}

describe("what one commit takes in", () => {
  it("an extraction commits its own files only; the dream's file in progress waits", async () => {
    const { place, tracked, kept } = await setup()
    writeFileSync(join(place.memoryDir, "mine.md"), "the extraction's\n")
    writeFileSync(join(place.memoryDir, "dreaming.md"), "the dream's, half done\n")
    await kept("extract", ["mine.md", "made-and-removed.md"], ["extract.lock"])
    expect(tracked()).toEqual(["mine.md"])
    await kept("dream", ["dreaming.md"], ["dream.lock"])
    expect(tracked()).toEqual(["dreaming.md", "mine.md"])
  })

  it("a task holding both locks commits every change, earlier leftovers included", async () => {
    const { place, tracked, kept } = await setup()
    writeFileSync(join(place.memoryDir, "left.md"), "left from a failed commit\n")
    writeFileSync(join(place.memoryDir, "mine.md"), "remembered\n")
    await kept("remember", ["mine.md"], ["extract.lock", "dream.lock"])
    expect(tracked()).toEqual(["left.md", "mine.md"])
  })
})
