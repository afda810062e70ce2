/**
 * The bounds of one history git command are exact: a local command runs for HISTORY_GIT_TIMEOUT_MS and is stopped
 * then, not a millisecond earlier; a command that talks to the remote gets SYNC_NETWORK_TIMEOUT_MS instead; stdout
 * and stderr may each be HISTORY_GIT_MAX_OUTPUT_BYTES long exactly, one byte more stops the command. A stopped child
 * is gone (no process left), and a commit stopped this way leaves memory as it was, committed by the next commit.
 * Time is Effect's TestClock; `git` is a stand-in on PATH (fakeGit.ts) where the real one cannot stall or overflow.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type GitFailed, runGit } from "../../layers/history/git.ts"
import { commitAll, initRepo } from "../../layers/history/historyRepo.ts"
import { makeLockService } from "../../layers/storage/LockService.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { HISTORY_GIT_MAX_OUTPUT_BYTES, HISTORY_GIT_TIMEOUT_MS, SYNC_NETWORK_TIMEOUT_MS } from "../../src/limits.ts"
import { tempDir } from "../support/tmp.ts"
import { alive, type FakeGit, gitPrinting, stallingGit } from "./fakeGit.ts"

const PATH = process.env["PATH"]
afterEach(() => {
  process.env["PATH"] = PATH
})
const using = (fake: { readonly dir: string }) => {
  process.env["PATH"] = `${fake.dir}:${PATH}`
}

/** A command not stopped at its bound would wait forever: a test fails after this long instead (never reached when it works). */
const STALLS = 60_000

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect.pipe(Effect.provide(TestContext.TestContext)))
const repo = () => ({ gitDir: join(tempDir("pm-limits-"), "history.git"), workTree: tempDir("pm-limits-memory-") })
const failure = <A>(exit: Exit.Exit<A, GitFailed>): GitFailed => {
  if (!Exit.isFailure(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a GitFailed, got ${String(exit)}`)
  return exit.cause.error
}

/** Runs a stalled command to `bound - 1`, checks it still runs, then answers it or moves the clock to `bound`. */
const atTheBound = (fake: FakeGit, bound: number, network: boolean, then: "answer" | "reach") =>
  run(Effect.gen(function*() {
    using(fake)
    const running = yield* Effect.fork(Effect.exit(runGit(repo(), ["ls-remote"], { network })))
    const pid = yield* Effect.promise(() => fake.pid())
    yield* TestClock.adjust(bound - 1)
    yield* Effect.yieldNow()
    expect(yield* Fiber.poll(running)).toMatchObject({ _tag: "None" })
    expect(alive(pid)).toBe(true)
    if (then === "answer") {
      yield* Effect.promise(() => fake.answer())
      return { pid, exit: yield* Fiber.join(running) }
    }
    yield* TestClock.adjust(1)
    return { pid, exit: yield* Fiber.join(running) }
  }))

describe("the time bound of a history git command", () => {
  it("a local command is stopped at HISTORY_GIT_TIMEOUT_MS exactly, and its process is gone", async () => {
    const { exit, pid } = await atTheBound(stallingGit(), HISTORY_GIT_TIMEOUT_MS, false, "reach")
    expect(failure(exit).code).toBe("timeout")
    expect(alive(pid)).toBe(false)
  }, STALLS)

  it("a local command that answers just below the bound is not stopped", async () => {
    const { exit } = await atTheBound(stallingGit(), HISTORY_GIT_TIMEOUT_MS, false, "answer")
    expect(Exit.isSuccess(exit) && exit.value.stdout).toBe("answered\n")
  })

  it("a command that talks to the remote runs past the local bound, to SYNC_NETWORK_TIMEOUT_MS exactly", async () => {
    expect(SYNC_NETWORK_TIMEOUT_MS).toBeGreaterThan(HISTORY_GIT_TIMEOUT_MS)
    const { exit, pid } = await atTheBound(stallingGit(), SYNC_NETWORK_TIMEOUT_MS, true, "reach")
    expect(failure(exit).code).toBe("timeout")
    expect(alive(pid)).toBe(false)
    const below = await atTheBound(stallingGit(), SYNC_NETWORK_TIMEOUT_MS, true, "answer")
    expect(Exit.isSuccess(below.exit)).toBe(true)
  }, STALLS)

  it("a commit stopped at the bound leaves memory as it was; the next commit takes the change in", async () => {
    const base = tempDir("pm-limits-commit-")
    const place = { memoryRootDir: join(base, "root"), memoryDir: join(base, "memory") }
    mkdirSync(place.memoryDir, { recursive: true })
    const fs = makeNodeFileSystem()
    const locks = makeLockService(fs)
    await Effect.runPromise(initRepo(fs, place))
    writeFileSync(join(place.memoryDir, "fact.md"), "a fact worth keeping\n")
    const fake = stallingGit("commit")
    const subject = { task: "remember-1", kind: "remember", session: null, model: null }
    const outcome = await run(Effect.gen(function*() {
      using(fake)
      const committing = yield* Effect.fork(commitAll(fs, locks, place, subject))
      const pid = yield* Effect.promise(() => fake.pid())
      yield* TestClock.adjust(HISTORY_GIT_TIMEOUT_MS)
      const outcome = yield* Fiber.join(committing)
      expect(alive(pid)).toBe(false)
      return outcome
    }))
    expect(outcome).toMatchObject({ _tag: "Failed", reason: expect.stringMatching(/time bound/) })
    expect(readFileSync(join(place.memoryDir, "fact.md"), "utf8")).toBe("a fact worth keeping\n")
    const gitDir = join(place.memoryRootDir, "history.git")
    expect(existsSync(join(gitDir, "index.lock"))).toBe(false)
    process.env["PATH"] = PATH
    expect(await Effect.runPromise(commitAll(fs, locks, place, subject))).toMatchObject({ _tag: "Committed" })
    expect(execFileSync("git", [`--git-dir=${gitDir}`, "show", "HEAD:fact.md"], { encoding: "utf8" })).toBe("a fact worth keeping\n")
  }, STALLS)
})

describe("the output bound of a history git command", () => {
  it("stdout of HISTORY_GIT_MAX_OUTPUT_BYTES exactly is taken whole", async () => {
    using(gitPrinting(HISTORY_GIT_MAX_OUTPUT_BYTES, "stdout", "exit"))
    const result = await Effect.runPromise(runGit(repo(), ["cat-file"], { bytes: true }))
    expect(result.raw?.length).toBe(HISTORY_GIT_MAX_OUTPUT_BYTES)
  })

  it("stderr of HISTORY_GIT_MAX_OUTPUT_BYTES exactly is taken whole", async () => {
    using(gitPrinting(HISTORY_GIT_MAX_OUTPUT_BYTES, "stderr", "exit"))
    const result = await Effect.runPromise(runGit(repo(), ["cat-file"]))
    expect(result.stderr.length).toBe(HISTORY_GIT_MAX_OUTPUT_BYTES)
  })

  for (const stream of ["stdout", "stderr"] as const) {
    it(`one byte more on ${stream} stops the command, and its process is gone`, async () => {
      const fake = gitPrinting(HISTORY_GIT_MAX_OUTPUT_BYTES + 1, stream, "stall")
      using(fake)
      const exit = await Effect.runPromise(Effect.exit(runGit(repo(), ["cat-file"], { bytes: true })))
      expect(failure(exit).code).toBe("output")
      expect(failure(exit).message).toContain(`its ${stream} grew past its bound`)
      expect(alive(fake.pidFile())).toBe(false)
    })
  }
})
