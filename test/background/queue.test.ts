/**
 * The queue of handed-over extractions: what a job holds (the extraction reads the same entries after the same
 * cursor as the session would have), its size bound at, below and above QUEUE_JOB_MAX_BYTES, its file format read
 * back, and its files (written whole and private to their owner, listed oldest first, a record that is not a job set
 * aside and reported, never lost, a job that cannot be written said so).
 */
import * as Effect from "effect/Effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FsError } from "../../layers/storage/FsError.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { makeQueueStore } from "../../layers/background/queueStore.ts"
import { type BranchEntry, entriesAfter } from "../../src/background/cursor.ts"
import { decodeJob, encodeJob, isJobFileName, jobFileName, makeJob, type QueuedJob } from "../../src/background/queue.ts"
import { QUEUE_JOB_MAX_BYTES } from "../../src/limits.ts"
import { tempDir } from "../support/tmp.ts"

const user = (id: string, content: string): BranchEntry => ({ type: "message", id, message: { role: "user", content } })
const assistant = (id: string, text: string): BranchEntry => ({ type: "message", id, message: { role: "assistant", content: [{ type: "text", text }] } })
const input = (branch: ReadonlyArray<BranchEntry>, cursor: string | undefined, queuedAt = 1_700_000_000_000) => ({
  session: "s-1",
  cwd: "/work/project",
  queuedAt,
  reason: "the session ended before these messages were extracted",
  model: "strict/strict-1",
  branch,
  cursor
})
const jobOf = (made: ReturnType<typeof makeJob>): QueuedJob => {
  if (made._tag !== "Job") throw new Error("expected a job")
  return made.job
}

describe("a job's entries", () => {
  const branch = [user("u1", "first question here"), assistant("a1", "first answer"), user("u2", "remember deploys happen on Fridays"), assistant("a2", "Noted.")]

  it("after a cursor on the branch: the cursor's entry (type and id only) and every entry after it", () => {
    const job = jobOf(makeJob(input(branch, "a1")))
    expect(job.cursor).toBe("a1")
    expect(job.branch).toEqual([{ type: "message", id: "a1" }, branch[2], branch[3]])
    expect(entriesAfter(job.branch, job.cursor ?? undefined)).toEqual(entriesAfter(branch, "a1"))
    expect(job).toMatchObject({ messages: 2, omitted: 0, model: "strict/strict-1", session: "s-1", cwd: "/work/project" })
  })

  it("no cursor: the whole branch; a cursor not on the branch: what follows the last compaction, as the extraction reads it", () => {
    const whole = jobOf(makeJob(input(branch, undefined)))
    expect(whole.cursor).toBeNull()
    expect(entriesAfter(whole.branch, undefined)).toEqual(branch)
    const compacted = [user("u0", "old stuff before"), { type: "compaction", id: "c1" }, ...branch]
    const elsewhere = jobOf(makeJob(input(compacted, "gone")))
    expect(elsewhere.branch[0]).toEqual({ type: "compaction", id: "c1" })
    expect(entriesAfter(elsewhere.branch, "gone")).toEqual(entriesAfter(compacted, "gone"))
    expect(entriesAfter(elsewhere.branch, "gone")).toEqual(branch)
  })
})

/** A branch whose whole job encodes to exactly `bytes` (its oldest message holds the filler). */
const branchOfSize = (bytes: number): ReadonlyArray<BranchEntry> => {
  const make = (filler: number) => [user("u1", `old ${"x".repeat(filler)}`), assistant("a1", "ok"), user("u2", "remember deploys happen on Fridays"), assistant("a2", "Noted.")]
  const base = Buffer.byteLength(encodeJob(jobOf(makeJob(input(make(0), undefined), Number.MAX_SAFE_INTEGER))))
  return make(bytes - base)
}

describe(`the bound of a job: QUEUE_JOB_MAX_BYTES (${QUEUE_JOB_MAX_BYTES})`, () => {
  it("at the bound: the whole job; one byte below too", () => {
    for (const size of [QUEUE_JOB_MAX_BYTES, QUEUE_JOB_MAX_BYTES - 1]) {
      const made = makeJob(input(branchOfSize(size), undefined))
      expect(made._tag).toBe("Job")
      if (made._tag !== "Job") return
      expect(Buffer.byteLength(made.text)).toBe(size)
      expect(made.job).toMatchObject({ omitted: 0, messages: 4, cursor: null })
    }
  })

  it("one byte above: the oldest message is left out (and counted), the cursor moves before what is kept", () => {
    const made = makeJob(input(branchOfSize(QUEUE_JOB_MAX_BYTES + 1), undefined))
    expect(made._tag).toBe("Job")
    if (made._tag !== "Job") return
    expect(Buffer.byteLength(made.text)).toBeLessThanOrEqual(QUEUE_JOB_MAX_BYTES)
    expect(made.job).toMatchObject({ omitted: 1, messages: 3, cursor: "u1" })
    expect(entriesAfter(made.job.branch, "u1").map((e) => e.id)).toEqual(["a1", "u2", "a2"])
  })

  it("a newest message larger than the bound alone: no job, and its size is said", () => {
    const huge = "y".repeat(QUEUE_JOB_MAX_BYTES)
    const made = makeJob(input([user("u1", "remember this one please"), assistant("a1", huge)], undefined))
    expect(made._tag).toBe("TooLarge")
    if (made._tag === "TooLarge") expect(made.bytes).toBeGreaterThan(QUEUE_JOB_MAX_BYTES)
  })
})

describe("a job's file", () => {
  const job = jobOf(makeJob(input([user("u1", "remember deploys happen on Fridays"), assistant("a1", "Noted.")], undefined)))

  it("reads back as written; names sort oldest first", () => {
    expect(decodeJob(encodeJob(job))).toEqual(job)
    const names = [3, 1, 2].map((t) => jobFileName({ queuedAt: t * 1000, session: "a/b c" }, "ff"))
    for (const n of names) expect(isJobFileName(n), n).toBe(true)
    expect([...names].sort()).toEqual([names[1], names[2], names[0]])
    expect(names[0]).toBe("0000000003000-a_b_c-ff.json")
  })

  it("a record that is not a job says why", () => {
    expect(decodeJob("{")).toBe("it is not JSON")
    expect(decodeJob("[]")).toBe("its version is undefined, not 1")
    expect(decodeJob(JSON.stringify({ ...job, version: 2 }))).toBe("its version is 2, not 1")
    expect(decodeJob(JSON.stringify({ ...job, cwd: 3 }))).toBe("its cwd is not a string")
    expect(decodeJob(JSON.stringify({ ...job, branch: [{ type: "message" }] }))).toBe("its branch is not a list of session entries")
    expect(decodeJob(JSON.stringify({ ...job, model: 1 }))).toBe("its model is neither a string nor null")
  })
})

describe("the queue's files", () => {
  const job = (queuedAt: number, text: string) => jobOf(makeJob(input([user("u1", text), assistant("a1", "Noted.")], undefined, queuedAt)))
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

  it("written whole, listed oldest first, removed once run; the summary counts them from their names", async () => {
    const root = tempDir("pm-queue-")
    const store = makeQueueStore(makeNodeFileSystem())
    for (const t of [3_000, 1_000, 2_000]) {
      const j = job(t, `remember fact number ${t}`)
      await run(store.enqueue(root, j, encodeJob(j)))
    }
    expect(readdirSync(join(root, "queue")).filter((n) => n.startsWith(".pm-"))).toEqual([])
    for (const n of readdirSync(join(root, "queue"))) expect(statSync(join(root, "queue", n)).mode & 0o777, n).toBe(0o600)
    const listed = await run(store.list(root))
    expect(listed.jobs.map((e) => e.job.queuedAt)).toEqual([1_000, 2_000, 3_000])
    expect(listed.damaged).toEqual([])
    expect(await run(store.summary(root))).toEqual({ count: 3, oldestAt: 1_000, damaged: 0 })
    await run(store.remove(listed.jobs[0]!))
    await run(store.remove(listed.jobs[0]!))
    expect(await run(store.summary(root))).toEqual({ count: 2, oldestAt: 2_000, damaged: 0 })
  })

  it("a record that is not a job is set aside in queue/damaged/ with its bytes, reported, and never listed again", async () => {
    const root = tempDir("pm-queue-")
    const store = makeQueueStore(makeNodeFileSystem())
    const good = job(5_000, "remember the good one")
    await run(store.enqueue(root, good, encodeJob(good)))
    const dir = join(root, "queue")
    writeFileSync(join(dir, "0000000001000-s-aa.json"), "{ torn")
    writeFileSync(join(dir, "notes.json"), "{}")
    const listed = await run(store.list(root))
    expect(listed.jobs.map((e) => e.job.queuedAt)).toEqual([5_000])
    expect(listed.damaged).toEqual([
      { name: "0000000001000-s-aa.json", reason: "it is not JSON", movedTo: join(dir, "damaged", "0000000001000-s-aa.json") },
      { name: "notes.json", reason: "its name is not a job's", movedTo: join(dir, "damaged", "notes.json") }
    ])
    expect(readFileSync(join(dir, "damaged", "0000000001000-s-aa.json"), "utf8")).toBe("{ torn")
    expect(await run(store.summary(root))).toEqual({ count: 1, oldestAt: 5_000, damaged: 2 })
    expect((await run(store.list(root))).damaged).toEqual([])
  })

  it("a record at the bound is read; one larger is set aside unread", async () => {
    const root = tempDir("pm-queue-")
    mkdirSync(join(root, "queue"))
    const atBound = makeJob(input(branchOfSize(QUEUE_JOB_MAX_BYTES), undefined))
    if (atBound._tag !== "Job") throw new Error("expected a job")
    writeFileSync(join(root, "queue", "0000000000500-s-aa.json"), atBound.text)
    writeFileSync(join(root, "queue", "0000000001000-s-bb.json"), "x".repeat(QUEUE_JOB_MAX_BYTES + 1))
    const listed = await run(makeQueueStore(makeNodeFileSystem()).list(root))
    expect(listed.jobs.map((e) => e.name)).toEqual(["0000000000500-s-aa.json"])
    expect(listed.damaged.map((d) => d.reason)).toEqual([`it is larger than ${QUEUE_JOB_MAX_BYTES} bytes`])
    expect(existsSync(join(root, "queue", "damaged", "0000000001000-s-bb.json"))).toBe(true)
  })

  it("a job that cannot be written fails with a sentence, and leaves no file behind", async () => {
    const root = tempDir("pm-queue-")
    const full = withOverrides(makeNodeFileSystem(), {
      link: (_from, to) => Effect.fail(new FsError({ op: "link", path: to, reason: "NoSpace", detail: "ENOSPC" }))
    })
    const j = job(1_000, "remember this one please")
    const failed = await Effect.runPromise(Effect.flip(makeQueueStore(full).enqueue(root, j, encodeJob(j))))
    expect(failed.message).toMatch(/^cannot write the job .*\/queue\/0000000001000-s-1-[0-9a-f]+\.json: no space left on the device \(ENOSPC\)$/)
    expect(readdirSync(join(root, "queue"))).toEqual([])
  })
})
