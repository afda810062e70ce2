/**
 * Recovery while another writer works on: an extraction (extract.lock) killed in its own process after all its changes,
 * while a dream (dream.lock, here in the test's process) keeps writing MEMORY.md. The next extraction recovers it without dream.lock; MEMORY.md
 * can no longer go back, so the index as it is decides (src/writes/recovery.ts): what it links stays, what it does not
 * goes, updates go back, and nothing the dream wrote is lost. And a task whose locks a live process holds is left to
 * that process.
 */
import { Effect, Exit } from "effect"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import { undoTarget } from "../../src/writes/journalUndo.ts"
import { type Env, expectConsistent, freshMemory, memoryFiles, run, runWorker, tempFiles, useBundledWorker } from "./recoverSupport.ts"
import { INITIAL, scenarioLayer, topic } from "./recoverScenarios.ts"

const real = makeNodeFileSystem()

const worker = useBundledWorker()

/** The next extraction's first step: extract.lock, then the recovery of what it can. */
const nextExtraction = (env: Env) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const journal = yield* Journal
    const outcome = yield* locks.withLock(locksDirOf(env.rootDir), "extract.lock", () => journal.recoverOpen(env, ["extract.lock"]))
    if (outcome._tag === "Busy") return yield* Effect.dieMessage("extract.lock busy")
    return outcome.value
  })

/**
 * A dream holding dream.lock that saves fact-e and rewrites MEMORY.md with `edit` (journaled, whole; no change without
 * `edit`), then runs `meanwhile` still holding it.
 */
const dreamHolding = <A, E, R>(env: Env, edit: ((index: string) => string) | undefined, meanwhile: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const locks = yield* LockService
    const journal = yield* Journal
    const writer = yield* MemoryWriter
    const outcome = yield* locks.withLock(locksDirOf(env.rootDir), "dream.lock", () =>
      Effect.gen(function*() {
        if (edit !== undefined) yield* journal.whole({ paths: env, meta: { task: "dream-live", kind: "dream", session: null, model: null }, locks: ["dream.lock"] }, (hook) =>
          Effect.gen(function*() {
            const task = yield* writer.openTask({ memoryDir: env.memoryDir, cwd: env.memoryDir, journal: hook })
            yield* task.write("fact-e.md", topic("fact e", "The dream's own fact."))
            const index = readFileSync(join(env.memoryDir, "MEMORY.md"), "utf8")
            yield* task.recordRead("MEMORY.md", { kind: "text", truncated: false })
            yield* task.write("MEMORY.md", edit(index))
          }), Exit.isSuccess)
        return yield* meanwhile
      }), { kind: "dream in a pi session" })
    if (outcome._tag === "Busy") return yield* Effect.dieMessage("dream.lock busy")
    return outcome.value
  })

const killedExtraction = async (): Promise<Env> => {
  const env = freshMemory()
  const killed = await runWorker(worker(), { ...env, scenario: "extract", killAt: "unmark" })
  expect(killed.signal).toBe("SIGKILL")
  // Every change made, none kept: the new topic, its index line and the edit of fact-c.
  expect(existsSync(join(env.memoryDir, "fact-d.md"))).toBe(true)
  expect(readFileSync(join(env.memoryDir, "fact-c.md"), "utf8")).toContain("Seen again.")
  expect(readdirSync(join(env.rootDir, "open"))).toHaveLength(1)
  return env
}

const E_LINE = "- [fact e](fact-e.md) - about fact e\n"

describe("an extraction killed in its process while a dream writes on", () => {
  it("the dream's index still links the new topic: it stays, the edit of fact-c goes back, the dream's changes all stay", async () => {
    const env = await killedExtraction()
    const recovered = await run(dreamHolding(env, (index) => `${index}${E_LINE}`, nextExtraction(env)))
    expect(recovered.map((r) => [r.kind, r.mode])).toEqual([["extract", "index"]])
    const files = memoryFiles(env.memoryDir)
    expect(files["fact-d.md"]).toBe(topic("fact d", "The fourth fact."))
    expect(files["fact-c.md"]).toBe(INITIAL["fact-c.md"])
    expect(files["MEMORY.md"]).toBe(`${INITIAL["MEMORY.md"]}- [fact d](fact-d.md) - about fact d\n${E_LINE}`)
    expect(files["fact-e.md"]).toBe(topic("fact e", "The dream's own fact."))
    expectConsistent(env.memoryDir, INITIAL, "after recovery")
    expect(tempFiles(env)).toEqual([])
    expect(readdirSync(join(env.rootDir, "open"))).toEqual([])
    // The recovery (the newest task, with changes of its own) is never what pm undo picks: the dream before it is.
    const listing = await run(Effect.flatMap(Journal, (j) => j.read(env)))
    expect(listing.entries[0]).toMatchObject({ kind: "recover", recovers: recovered[0]!.task })
    expect(undoTarget([...listing.entries].reverse())?.task).toBe("dream-live")
  })

  it("the dream removed the new topic's line: the topic goes too, so nothing is left unindexed", async () => {
    const env = await killedExtraction()
    const dropD = (index: string) => `${index.replace("- [fact d](fact-d.md) - about fact d\n", "")}${E_LINE}`
    const recovered = await run(dreamHolding(env, dropD, nextExtraction(env)))
    expect(recovered.map((r) => r.mode)).toEqual(["index"])
    const files = memoryFiles(env.memoryDir)
    expect(files["fact-d.md"]).toBeUndefined()
    expect(files["fact-c.md"]).toBe(INITIAL["fact-c.md"])
    expect(files["MEMORY.md"]).toBe(`${INITIAL["MEMORY.md"]}${E_LINE}`)
    expectConsistent(env.memoryDir, INITIAL, "after recovery")
  })

  it("nobody wrote meanwhile: the next extraction rolls it back whole, and pm undo passes over it", async () => {
    const env = await killedExtraction()
    const recovered = await run(nextExtraction(env))
    expect(recovered.map((r) => [r.kind, r.mode, r.files.map((f) => f.outcome)])).toEqual([
      ["extract", "rollback", ["deleted", "restored", "restored"]]
    ])
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
    const undone = await run(Effect.flatMap(Journal, (j) => j.undo(env, { session: null, model: null })).pipe(Effect.flip))
    expect(undone._tag).toBe("NothingToUndo")
  })
})

describe("MEMORY.md written in place just before recovery puts it back (the main agent takes no lock)", () => {
  it("the other writer's index wins, and the rest follows it", async () => {
    const env = await killedExtraction()
    const byHand = `# Memory, edited by hand\n${INITIAL["MEMORY.md"]!.split("\n").slice(1).join("\n")}- [fact d](fact-d.md) - about fact d\n`
    let wrote = false
    const fs = withOverrides(real, {
      rename: (from, to) => {
        if (!wrote && to.endsWith("/MEMORY.md")) {
          wrote = true
          // Into the very file about to be replaced, as a write in place does: same inode, new bytes.
          writeFileSync(to, byHand)
        }
        return real.rename(from, to)
      }
    })
    const recovered = await Effect.runPromise(nextExtraction(env).pipe(Effect.provide(scenarioLayer(fs))))
    expect(wrote).toBe(true)
    expect(recovered.map((r) => r.mode)).toEqual(["index"])
    const files = memoryFiles(env.memoryDir)
    expect(files["MEMORY.md"]).toBe(byHand)
    expect(files["fact-d.md"]).toBe(topic("fact d", "The fourth fact."))
    expect(files["fact-c.md"]).toBe(INITIAL["fact-c.md"])
    expectConsistent(env.memoryDir, INITIAL, "after recovery")
    // Not rolled back whole: the extraction is not counted as undone.
    const listing = await run(Effect.flatMap(Journal, (j) => j.read(env)))
    expect(listing.entries.filter((e) => e.recovers !== undefined && e.finished === true).map((e) => e.undoes)).toEqual([undefined])
  })
})

describe("a task whose locks a live process holds", () => {
  it("is left to that process: a dead remember (both locks) is not recovered by an extraction while a dream runs", async () => {
    const env = freshMemory()
    const killed = await runWorker(worker(), { ...env, scenario: "remember", killAt: "unmark" })
    expect(killed.signal).toBe("SIGKILL")
    const during = await run(dreamHolding(env, undefined, nextExtraction(env)))
    expect(during).toEqual([])
    expect(readdirSync(join(env.rootDir, "open"))).toHaveLength(1)
    // Once the dream has ended, the next extraction takes dream.lock at once and rolls the remember back.
    const after = await run(nextExtraction(env))
    expect(after.map((r) => [r.kind, r.mode])).toEqual([["remember", "rollback"]])
    expect(memoryFiles(env.memoryDir)).toEqual(INITIAL)
  })
})
