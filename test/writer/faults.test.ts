/**
 * Fault injection through FileSystem.layerWith: failures at the temp write, the rename and the cleanup. Whatever
 * fails, the original stays intact and no temp file remains.
 */
import { Deferred, Effect, Fiber, Layer } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { writeFile as writeFileAsync } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { StateStore } from "../../layers/storage/StateStore.ts"
import { sandbox, temps, withTask } from "./support.ts"

const real = makeNodeFileSystem()
const ORIGINAL = "---\nname: a\ndescription: original\nmetadata:\n  type: project\n---\noriginal body\n"
const NEW = "---\nname: a\ndescription: new\nmetadata:\n  type: project\n---\nnew body\n"
const full = { kind: "text", truncated: false } as const
const isTemp = (path: string) => /\.pm-[^/]*\.tmp$|\.tmp$/.test(path)
const fault = (op: string, path: string, reason: FsError["reason"] = "Unknown") =>
  new FsError({ op, path, reason, detail: "injected" })

/** Fails the first `times` calls matching `when`, then behaves. */
const failing = <K extends keyof FileSystemShape>(
  key: K,
  when: (...args: Parameters<FileSystemShape[K]>) => boolean,
  times = Number.POSITIVE_INFINITY
): Partial<FileSystemShape> => {
  let left = times
  const original = real[key] as (...args: Array<unknown>) => Effect.Effect<unknown, FsError>
  return {
    [key]: (...args: Array<unknown>) =>
      Effect.suspend(() =>
        (when as (...a: Array<unknown>) => boolean)(...args) && left-- > 0
          ? Effect.fail(fault(String(key), String(args[0])))
          : original(...args)
      )
  } as Partial<FileSystemShape>
}

const rewrite = (overrides: Partial<FileSystemShape>, path = "a.md") => {
  const s = sandbox()
  writeFileSync(join(s.memory, "a.md"), ORIGINAL)
  const result = withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
    Effect.gen(function*() {
      yield* t.recordRead("a.md", full)
      return yield* Effect.either(t.write(path, NEW))
    }), overrides)
  return { s, result }
}

describe("write faults", () => {
  it("the temp write fails (after writing half the bytes): original intact, no temp", async () => {
    const { result, s } = rewrite({
      writeFile: (path, data, options) =>
        isTemp(path)
          ? Effect.promise(() => writeFileAsync(path, String(data).slice(0, 10))).pipe(
            Effect.zipRight(Effect.fail(fault("write", path, "Busy")))
          )
          : real.writeFile(path, data, options)
    })
    using _ = s
    expect(await result).toMatchObject({ _tag: "Left", left: { _tag: "PublishFailed", op: "stage" } })
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe(ORIGINAL)
    expect(temps(s.root)).toEqual([])
  })

  it("the rename fails: original intact, no temp", async () => {
    const { result, s } = rewrite(failing("rename", () => true))
    using _ = s
    const outcome = await result
    expect(outcome).toMatchObject({ _tag: "Left", left: { _tag: "PublishFailed", op: "replace" } })
    if (outcome._tag === "Left") expect(outcome.left.message).toMatch(/unchanged/)
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe(ORIGINAL)
    expect(temps(s.root)).toEqual([])
  })

  it("the rename fails and the first cleanups fail too: retried until the temp is gone", async () => {
    const { result, s } = rewrite({
      ...failing("rename", () => true),
      ...failing("unlink", (p) => isTemp(p), 3)
    })
    using _ = s
    expect(await result).toMatchObject({ _tag: "Left" })
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe(ORIGINAL)
    expect(temps(s.root)).toEqual([])
  })

  it("a new file: link fails, and cleanup fails once: nothing published, no temp", async () => {
    const { result, s } = rewrite({ ...failing("link", () => true), ...failing("unlink", (p) => isTemp(p), 1) }, "b.md")
    using _ = s
    expect(await result).toMatchObject({ _tag: "Left", left: { _tag: "PublishFailed", op: "create" } })
    expect(existsSync(join(s.memory, "b.md"))).toBe(false)
    expect(temps(s.root)).toEqual([])
  })

  it("a new file published, then its temp name's cleanup fails once: published, no temp", async () => {
    const { result, s } = rewrite(failing("unlink", (p) => isTemp(p), 1), "b.md")
    using _ = s
    expect(await result).toMatchObject({ _tag: "Right", right: { created: true } })
    expect(readFileSync(join(s.memory, "b.md"), "utf8")).toBe(NEW)
    expect(temps(s.root)).toEqual([])
  })

  it("a racing creator of a new file is never clobbered", async () => {
    const { result, s } = rewrite({
      link: (from, to) => Effect.sync(() => writeFileSync(to, "theirs", { flag: "wx" })).pipe(Effect.zipRight(real.link(from, to)))
    }, "b.md")
    using _ = s
    expect(await result).toMatchObject({ _tag: "Left", left: { _tag: "StaleBaseline", reason: "created" } })
    expect(readFileSync(join(s.memory, "b.md"), "utf8")).toBe("theirs")
    expect(temps(s.root)).toEqual([])
  })

  it("interrupted while publishing: original intact, no temp", async () => {
    using s = sandbox()
    writeFileSync(join(s.memory, "a.md"), ORIGINAL)
    await Effect.runPromise(Effect.gen(function*() {
      const reached = yield* Deferred.make<void>()
      yield* Effect.promise(() =>
        withTask({ memoryDir: s.memory, cwd: s.memory }, (t) =>
          Effect.gen(function*() {
            yield* t.recordRead("a.md", full)
            const fiber = yield* Effect.fork(t.write("a.md", NEW))
            yield* Deferred.await(reached)
            yield* Fiber.interrupt(fiber)
          }), {
          rename: () => Deferred.succeed(reached, undefined).pipe(Effect.zipRight(Effect.never))
        })
      )
    }))
    expect(readFileSync(join(s.memory, "a.md"), "utf8")).toBe(ORIGINAL)
    expect(temps(s.root)).toEqual([])
  })
})

describe("state.json faults", () => {
  const store = (overrides: Partial<FileSystemShape>) =>
    StateStore.layer.pipe(
      Layer.provideMerge(LockService.layer),
      Layer.provide(FileSystem.layerWith(overrides))
    )
  for (const [label, overrides] of [
    // The state file's own temp write and rename (its lock is published the same way, and may fail first there).
    ["temp write", failing("writeFile", (p) => isTemp(p) && !p.includes(".lock."))],
    ["rename", failing("rename", () => true)]
  ] as const) {
    it(`a failure at the ${label} leaves state.json as it was`, async () => {
      using s = sandbox()
      const rootDir = join(s.root, "root")
      await Effect.runPromise(Effect.gen(function*() {
        const state = yield* StateStore
        yield* state.update({ rootDir }, (st) => ({ ...st, lastDreamAt: 1 }))
      }).pipe(Effect.provide(store({}))))
      const before = readFileSync(join(rootDir, "state.json"), "utf8")
      const outcome = await Effect.runPromise(Effect.gen(function*() {
        const state = yield* StateStore
        return yield* Effect.either(state.update({ rootDir }, (st) => ({ ...st, lastDreamAt: 2 })))
      }).pipe(Effect.provide(store(overrides))))
      expect(outcome).toMatchObject({ _tag: "Left", left: { _tag: "StateFailed" } })
      expect(readFileSync(join(rootDir, "state.json"), "utf8")).toBe(before)
      expect(temps(s.root)).toEqual([])
      expect(existsSync(join(rootDir, "locks", "last-dream-at.lock"))).toBe(false)
    })
  }
})
