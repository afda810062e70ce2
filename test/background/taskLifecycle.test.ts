/**
 * The real extraction and dream tasks (the runner, the six tools, the writer on real files) in the extension's own
 * graph, with a scripted model and a file system that can hold or fail one write: interrupting a task stops a write
 * under way (nothing lands after the task ended), a dream that loses dream.lock stops at once and refuses the rest,
 * a dream whose writes fail is recorded as failed and told once, and a dream that fails in its fork step (a thrown
 * model request, tools that cannot be set up, a first request answered with an error) gives its attempt time back.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import { fauxAssistantMessage, fauxText, fauxToolCall, type AssistantMessage } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { BackgroundHost, BackgroundSession, statusKeyOf } from "../../layers/background/BackgroundSession.ts"
import type { PiToolkitShape } from "../../layers/background/PiToolkit.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { withOverrides } from "../../layers/storage/fileSystemOverrides.ts"
import { ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { StateStore } from "../../layers/storage/StateStore.ts"
import { locksDirOf } from "../../src/storage/layout.ts"
import { extensionGraph, hostLayer, registryLayer } from "../support/extensionGraph.ts"
import { TOPIC } from "../support/taskTools.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const call = (name: string, args: Record<string, any>): AssistantMessage =>
  fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const say = (text: string): AssistantMessage => fauxAssistantMessage([fauxText(text)])

/** A promise with its resolver, for events between the test and the code under it. */
const signal = <A = void>() => {
  let resolve!: (a: A) => void
  const promise = new Promise<A>((r) => (resolve = r))
  return { promise, resolve }
}

interface Options {
  /** What becomes of writing a memory file's staged temp file whose content contains `marker`. */
  readonly onStage?: { readonly marker: string; readonly action: "hold" | "full" }
  readonly toolkit?: PiToolkitShape
}

const setup = async (o: Options) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-lifecycle-")))
  dirs.push(base)
  const cwd = join(base, "project")
  mkdirSync(cwd)
  execFileSync("git", ["init", "-q"], { cwd })
  const sessionDir = join(base, "sessions")
  mkdirSync(sessionDir)
  const branch: Array<any> = [
    { type: "message", id: "u1", message: { role: "user", content: "remember that the deploy day is friday", timestamp: 1 } },
    { type: "message", id: "a1", message: { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: 2 } }
  ]
  const appended: Array<{ customType: string; data: any }> = []
  const notified: Array<string> = []
  const requests: Array<any> = []
  /** The model's answer to each request of a background task, by its index (0 first); set by the test. */
  const script: { model: (index: number, context: any) => AssistantMessage | Promise<AssistantMessage> } = {
    model: () => say("nothing to save")
  }
  const staged = signal()
  const release = signal()
  /** The staged write's end: "published" when its temp file was renamed or linked into place, else "removed". */
  const stagedEnd = signal<"published" | "removed">()
  let stagedTemp: string | undefined
  /** What happened to the staged write and the task locks, in order. */
  const order: Array<string> = []
  /** The status lines set, by key. */
  const statuses: Array<[string, string | undefined]> = []
  const real = makeNodeFileSystem()
  const isStaged = (path: string, data: string | Uint8Array) =>
    o.onStage !== undefined && stagedTemp === undefined && basename(path).startsWith(".pm-") && path.endsWith(".tmp") &&
    String(typeof data === "string" ? data : Buffer.from(data).toString("utf8")).includes(o.onStage.marker)
  const fileSystem = withOverrides(real, {
    writeFile: (path, data, options) =>
      isStaged(path, data)
        ? o.onStage!.action === "full"
          ? Effect.fail(new FsError({ op: "write", path, reason: "NoSpace", detail: "ENOSPC" }))
          : Effect.sync(() => {
            stagedTemp = path
            staged.resolve()
          }).pipe(Effect.zipRight(Effect.promise(() => release.promise)), Effect.zipRight(real.writeFile(path, data, options)))
        : real.writeFile(path, data, options),
    rename: (from, to) => real.rename(from, to).pipe(Effect.tap(() => Effect.sync(() => from === stagedTemp && stagedEnd.resolve("published")))),
    link: (from, to) => real.link(from, to).pipe(Effect.tap(() => Effect.sync(() => from === stagedTemp && stagedEnd.resolve("published")))),
    unlink: (path) =>
      real.unlink(path).pipe(Effect.ensuring(Effect.sync(() => {
        if (path === stagedTemp) {
          order.push("staged write ended")
          stagedEnd.resolve("removed")
        }
        if (path.endsWith("/extract.lock") || path.endsWith("/dream.lock")) order.push(`${basename(path)} released`)
      })))
  })
  const layer = extensionGraph({
    host: hostLayer(cwd, {
      sessionId: Effect.succeed("s1"),
      branch: Effect.sync(() => branch),
      appendEntry: (customType, data) => Effect.sync(() => void appended.push({ customType, data })),
      notify: (message) => Effect.sync(() => void notified.push(message))
    }),
    models: registryLayer(async (_model, context) => {
      requests.push(context)
      return script.model(requests.length - 1, context)
    }),
    background: Layer.succeed(BackgroundHost, {
      setStatus: (kind, text) => Effect.sync(() => void statuses.push([statusKeyOf(kind), text])),
      codemode: Effect.succeed(undefined),
      sessionDir: Effect.succeed({ dir: sessionDir, shared: false })
    }),
    ...(o.toolkit === undefined ? {} : { toolkit: o.toolkit }),
    env: { agentDir: join(base, "agent"), home: base },
    core: { fileSystem: Layer.succeed(FileSystem, fileSystem) }
  })
  return { statuses, order, base, cwd, sessionDir, branch, appended, notified, requests, script, staged, release, stagedEnd, layer }
}

/** Runs `body` over one instance of the graph (one BackgroundSession for the whole test). */
const withGraph = <A>(layer: Layer.Layer<BackgroundSession | ProjectLocator | StateStore>, body: Effect.Effect<A, unknown, BackgroundSession | ProjectLocator | StateStore>) =>
  Effect.runPromise(body.pipe(Effect.provide(layer), Effect.scoped) as Effect.Effect<A>)

const locate = (cwd: string) => Effect.flatMap(ProjectLocator, (l) => l.locate(cwd))

describe("background tasks end cleanly", () => {
  it("an extraction interrupted mid-write: the interruption waits for the write under way, which publishes nothing", async () => {
    const s = await setup({ onStage: { marker: "MARK-INTERRUPTED", action: "hold" } })
    await withGraph(s.layer, Effect.gen(function*() {
      const location = yield* locate(s.cwd)
      const topic = join(location.memoryDir, "deploy.md")
      // The model writes a topic file; the file system holds the staged write until the test releases it.
      s.script.model = (i) => (i === 0 ? call("write", { path: topic, content: TOPIC("Deploy", "MARK-INTERRUPTED friday") }) : say("done"))
      const bg = yield* BackgroundSession
      yield* bg.start
      yield* bg.settled(false)
      yield* Effect.promise(() => s.staged.promise)
      // Compaction begins and is aborted at once: the extraction in flight is interrupted.
      const controller = new AbortController()
      const compaction = yield* Effect.fork(bg.beforeCompact(controller.signal))
      controller.abort()
      // The interruption waits for the write under way (it cannot be taken back once staged)...
      // The task's own steps (a few turns of the event loop) go ahead; the lock stays held.
      for (let i = 0; i < 20; i++) yield* Effect.promise(() => new Promise<void>((r) => setImmediate(r)))
      expect(compaction.unsafePoll()).toBeNull()
      s.release.resolve()
      yield* Fiber.join(compaction)
      // ...and that write publishes nothing: its last check before the rename saw the task stopped.
      expect(yield* Effect.promise(() => s.stagedEnd.promise)).toBe("removed")
      expect(existsSync(topic)).toBe(false)
      // extract.lock was released only once the write had ended.
      expect(s.order).toEqual(["staged write ended", "extract.lock released"])
      expect(s.appended.filter((e) => e.customType === "pm-extract-cursor")).toEqual([])
      expect((yield* bg.status).runs.extract).toMatchObject({ outcome: "stopped" })
    }))
  })

  it("an extraction interrupted after a write was published: that write is taken back with it, and the retry saves it once", async () => {
    const s = await setup({ onStage: { marker: "MARK-SECOND", action: "hold" } })
    await withGraph(s.layer, Effect.gen(function*() {
      const location = yield* locate(s.cwd)
      const first = join(location.memoryDir, "deploy.md")
      const second = join(location.memoryDir, "release.md")
      s.script.model = (i) =>
        i === 0
          ? call("write", { path: first, content: TOPIC("Deploy", "friday") })
          : i === 1
          ? call("write", { path: second, content: TOPIC("Release", "MARK-SECOND tuesday") })
          : say("done")
      const bg = yield* BackgroundSession
      yield* bg.start
      yield* bg.settled(false)
      yield* Effect.promise(() => s.staged.promise)
      expect(existsSync(first)).toBe(true)
      // Compaction begins and is aborted at once: the extraction in flight is interrupted.
      const controller = new AbortController()
      const compaction = yield* Effect.fork(bg.beforeCompact(controller.signal))
      controller.abort()
      s.release.resolve()
      yield* Fiber.join(compaction)
      // Its cursor stays, so its messages are extracted again: what it had saved is taken back, not left to be saved twice.
      expect(existsSync(first)).toBe(false)
      expect(existsSync(second)).toBe(false)
      expect(s.appended.filter((e) => e.customType === "pm-extract-cursor")).toEqual([])
      const retry = s.requests.length
      s.script.model = (i) => (i === retry ? call("write", { path: first, content: TOPIC("Deploy", "friday") }) : say("done"))
      yield* bg.settled(false)
      yield* bg.idle
      expect(readFileSync(first, "utf8")).toBe(TOPIC("Deploy", "friday"))
      expect(readdirSync(location.memoryDir).filter((n) => n.startsWith("deploy"))).toEqual(["deploy.md"])
    }))
  })

  it("a dream that loses dream.lock stops at once: the next tool call is refused and no further request is made", async () => {
    const s = await setup({})
    await withGraph(s.layer, Effect.gen(function*() {
      const location = yield* locate(s.cwd)
      const lockFile = join(locksDirOf(location.memoryRootDir), "dream.lock")
      s.script.model = (i) => {
        if (i === 0) return call("write", { path: join(location.memoryDir, "first.md"), content: TOPIC("First", "kept") })
        // Another holder took the lock over (its token is in the file now) before the model's second answer.
        const record = JSON.parse(readFileSync(lockFile, "utf8"))
        writeFileSync(lockFile, JSON.stringify({ ...record, token: "someone-else" }))
        return call("write", { path: join(location.memoryDir, "second.md"), content: TOPIC("Second", "never") })
      }
      const bg = yield* BackgroundSession
      yield* bg.start
      const record = yield* bg.dreamNow
      // Its first write was published, then taken back with the rest: a dream that does not end by itself is rolled
      // back whole (layers/writes/journalRecover.ts).
      expect(existsSync(join(location.memoryDir, "first.md"))).toBe(false)
      expect(existsSync(join(location.memoryDir, "second.md"))).toBe(false)
      expect(s.requests).toHaveLength(2)
      expect(record.outcome).toBe("failed")
      expect(record.detail).toMatch(/dream\.lock/)
      // The dream's status line has its own key: an extraction's end never clears it.
      expect(s.statuses).toEqual([["pm-memory-dream", "memory: dreaming"], ["pm-memory-dream", undefined]])
    }))
  })

  it("a dream whose write fails for a reason of the system is recorded as failed, naming it", async () => {
    const s = await setup({ onStage: { marker: "MARK-FULL", action: "full" } })
    await withGraph(s.layer, Effect.gen(function*() {
      const location = yield* locate(s.cwd)
      s.script.model = (i) =>
        i === 0 ? call("write", { path: join(location.memoryDir, "merged.md"), content: TOPIC("Merged", "MARK-FULL") }) : say("done")
      const bg = yield* BackgroundSession
      yield* bg.start
      const record = yield* bg.dreamNow
      expect(existsSync(join(location.memoryDir, "merged.md"))).toBe(false)
      expect(record).toMatchObject({ kind: "dream", outcome: "failed" })
      expect(record.detail).toMatch(/1 write failed, so memory was not saved: .*no space left/)
    }))
  })

  const rollbackCases: ReadonlyArray<readonly [string, Partial<Options>, (i: number) => AssistantMessage]> = [
    ["its model request throws", {}, () => { throw new Error("connection refused") }],
    ["its first request is answered with an error", {}, () => fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "overloaded" } as any)],
    ["its tools cannot be set up", { toolkit: { ...pi, createReadToolDefinition: () => { throw new Error("no read tool here") } } as PiToolkitShape }, () => say("done")]
  ]
  for (const [what, options, model] of rollbackCases) {
    it(`a dream that fails in its fork step because ${what} gives its attempt time back`, async () => {
      const s = await setup(options)
      await withGraph(s.layer, Effect.gen(function*() {
        const location = yield* locate(s.cwd)
        s.script.model = model
        const bg = yield* BackgroundSession
        yield* bg.start
        const record = yield* bg.dreamNow
        expect(record.outcome).toBe("failed")
        expect(record.detail).toMatch(/the attempt time was rolled back/)
        const state = yield* (yield* StateStore).read({ rootDir: location.memoryRootDir, legacyFile: location.legacyStatePath })
        expect(state.state.lastDreamAt).toBeNull()
      }))
    })
  }

  it("a dream whose model answered once before an error keeps its attempt time", async () => {
    const s = await setup({})
    await withGraph(s.layer, Effect.gen(function*() {
      const location = yield* locate(s.cwd)
      s.script.model = (i) =>
        i === 0 ? call("find", { pattern: "*.md", path: location.memoryDir }) : fauxAssistantMessage([fauxText("")], { stopReason: "error", errorMessage: "overloaded" } as any)
      const bg = yield* BackgroundSession
      yield* bg.start
      const record = yield* bg.dreamNow
      expect(record).toMatchObject({ outcome: "failed", detail: "model error: overloaded" })
      const state = yield* (yield* StateStore).read({ rootDir: location.memoryRootDir, legacyFile: location.legacyStatePath })
      expect(state.state.lastDreamAt).not.toBeNull()
    }))
  })
})
