/**
 * What `pm undo` says after an interruption. A change killed before it was kept: the undo rolls it back first, says
 * so, and undoes nothing else; asked by name afterwards, it says the task was rolled back; `pm log` shows it so. An
 * undo killed part way: the next undo rolls it back and then undoes its task whole.
 */
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { Journal } from "../../layers/writes/Journal.ts"
import { describeUndo, undoUnderLocks } from "../../layers/writes/MemoryUndo.ts"
import { freshMemory, memoryFiles, run, runWorker, useBundledWorker, type Env } from "./recoverSupport.ts"
import { INITIAL } from "./recoverScenarios.ts"
import { join } from "node:path"
import { project } from "../faults/support.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"

const worker = useBundledWorker()
beforeAll(() => ensureBuilt())
const locationOf = (env: Env) => ({ memoryDir: env.memoryDir, memoryRootDir: env.rootDir }) as Parameters<typeof undoUnderLocks>[0]
const undo = (env: Env, task?: string) => undoUnderLocks(locationOf(env), { ...(task === undefined ? {} : { task }), session: null, model: null })

describe("pm undo after an interrupted change", () => {
  it("a change killed before it was kept (an extraction): undo rolls it back, says so, and undoes nothing else; by name: nothing left", async () => {
    const env = freshMemory()
    // An earlier remember, kept: the undo must not reach it.
    await runWorker(worker(), { ...env, scenario: "remember", killAt: null })
    const kept = memoryFiles(env.memoryDir)
    const killed = await runWorker(worker(), { ...env, scenario: "extract", killAt: "unmark" })
    expect(killed.signal).toBe("SIGKILL")
    const result = await run(undo(env))
    expect(result.undoTask).toBeUndefined()
    expect(result.recovered?.map((r) => [r.kind, r.mode])).toEqual([["extract", "rollback"]])
    const lines = describeUndo(result)
    expect(lines).toEqual([
      expect.stringMatching(/^an extraction \(extract-[0-9a-f-]+\) was interrupted earlier; it was rolled back \(3 files put back\)\.$/),
      "Nothing else was undone: memory is as it was before that change. `pm undo` again undoes the change before it."
    ])
    expect(memoryFiles(env.memoryDir)).toEqual(kept)
    // By name: nothing left to undo, and why.
    const byName = await run(undo(env, result.task).pipe(Effect.flip))
    expect(byName.message).toMatch(new RegExp(`^nothing to undo: ${result.task} was interrupted, and was rolled back when it was found \\(.+\\); memory is as it was before it$`))
    // pm log says so (read through the journal as pm log reads it).
    const listing = await run(Effect.flatMap(Journal, (j) => j.read(env)))
    const recovery = listing.entries.find((e) => e.recovers === result.task)
    expect(recovery).toMatchObject({ kind: "recover", undoes: result.task, finished: true })
    // The next undo reaches the remember kept before it.
    const next = await run(undo(env))
    expect(next.task).toMatch(/^remember-/)
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
  })

  it("an undo killed part way: the next undo rolls it back, then undoes its task whole", async () => {
    const env = freshMemory()
    await runWorker(worker(), { ...env, scenario: "remember", killAt: null })
    const killed = await runWorker(worker(), { ...env, scenario: "undo", killAt: "unmark" })
    expect(killed.signal).toBe("SIGKILL")
    const result = await run(undo(env))
    expect(result.recovered?.map((r) => r.kind)).toEqual(["undo"])
    expect(result.task).toMatch(/^remember-/)
    expect(result.undoTask).toMatch(/^undo-/)
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
    expect(describeUndo(result)[0]).toMatch(/^an undo \(undo-[0-9a-f-]+\) was interrupted earlier; it was rolled back/)
  })
})

describe("pm log after an interrupted change", () => {
  it("shows the task as interrupted and rolled back, and the recovery as such", async () => {
    const p = await project(join(tempDir("pm-agent-"), "agent"), ["fact-a", "fact-b", "fact-c"])
    const env = { memoryDir: p.memoryDir, rootDir: p.rootDir }
    expect((await runWorker(worker(), { ...env, scenario: "forget", killAt: "unmark" })).signal).toBe("SIGKILL")
    await run(undo(env))
    const log = await runPm(["log", "--cwd", p.repo], p)
    expect(log.code, log.stderr).toBe(0)
    expect(log.stdout).toMatch(/ forget +forget-\S+ /)
    expect(log.stdout).toContain("    interrupted, and rolled back when found (recover-")
    expect(log.stdout).toMatch(/    the recovery of forget-\S+, interrupted earlier/)
  })
})
