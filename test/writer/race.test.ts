/**
 * A parent directory swapped for a symlink between the writer's check and its change, at every step.
 *
 * An injected FileSystem counts the writer's file system calls; for each k, a fresh run swaps `memory/sub` (moved to
 * `attic/`, replaced by a symlink to `outside/`) right before the k-th call. Whatever k, nothing in `outside/` changes:
 * no file written, replaced, created, deleted, no directory made. Run for both anchoring schemes.
 */
import { Effect, Layer } from "effect"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { MemoryWriter, type MemoryWriterOptions } from "../../layers/writes/MemoryWriter.ts"
import { sandbox, temps } from "./support.ts"

const TOPIC = "---\nname: x\ndescription: y\nmetadata:\n  type: project\n---\nnew body\n"
const OLD = "---\nname: x\ndescription: y\nmetadata:\n  type: project\n---\nold body\n"

/** Every entry under `dir` with its content ("<dir>" for directories, "-> target" for links). */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const rel of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, rel)
    const st = lstatSync(path)
    out[rel] = st.isDirectory() ? "<dir>" : st.isSymbolicLink() ? "-> link" : readFileSync(path, "utf8")
  }
  return out
}

/** The real file system, with `beforeCall(n)` run before the n-th call (0-based) of any operation. */
const counting = (beforeCall: (n: number, op: string, args: ReadonlyArray<unknown>) => void): FileSystemShape => {
  const real = makeNodeFileSystem()
  let n = 0
  const wrapped: Record<string, unknown> = {}
  for (const [op, f] of Object.entries(real)) {
    wrapped[op] = (...args: Array<unknown>) =>
      Effect.suspend(() => {
        beforeCall(n++, op, args)
        return (f as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)
      })
  }
  return wrapped as unknown as FileSystemShape
}

type Scenario = "create" | "replace" | "mkdir" | "delete"

interface Setup {
  readonly memory: string
  readonly outside: string
  readonly attic: string
  readonly run: (fs: FileSystemShape) => Promise<{ ok: boolean; tag: string }>
  readonly dispose: () => void
}

const setup = (scenario: Scenario, anchoring: NonNullable<MemoryWriterOptions["anchoring"]>): Setup => {
  const s = sandbox()
  const attic = join(s.root, "attic")
  mkdirSync(attic)
  const sub = join(s.memory, "sub")
  mkdirSync(sub)
  writeFileSync(join(sub, "a.md"), OLD)
  // The victims: what a write or delete through the swapped link would reach.
  writeFileSync(join(s.outside, "a.md"), "victim")
  const layer = (fs: FileSystemShape) =>
    MemoryWriter.layerWith({ anchoring }).pipe(Layer.provide(Layer.succeed(FileSystem, fs)))
  const run = (fs: FileSystemShape) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const writer = yield* MemoryWriter
        if (scenario === "delete") {
          return yield* writer.remove(join(sub, "a.md"), { memoryDir: s.memory })
        }
        const task = yield* writer.openTask({ memoryDir: s.memory, cwd: s.memory })
        if (scenario === "replace") {
          yield* task.recordRead(join(sub, "a.md"), { kind: "text", truncated: false })
          return yield* task.write(join(sub, "a.md"), TOPIC)
        }
        return yield* task.write(join(sub, ...(scenario === "mkdir" ? ["new", "deeper"] : []), "x.md"), TOPIC)
      }).pipe(
        Effect.match({ onFailure: (e) => ({ ok: false, tag: `${e._tag}:${"rule" in e ? e.rule : ""}` }), onSuccess: () => ({ ok: true, tag: "ok" }) }),
        Effect.provide(layer(fs))
      )
    )
  return { memory: s.memory, outside: s.outside, attic, run, dispose: s[Symbol.dispose] }
}

const swap = (st: Setup) => {
  const sub = join(st.memory, "sub")
  if (!lstatSync(sub).isDirectory()) return
  renameSync(sub, join(st.attic, "sub"))
  symlinkSync(st.outside, sub)
}

for (const anchoring of ["descriptor", "path"] as const) {
  describe(`a parent swapped for a symlink at every step (${anchoring} anchoring)`, () => {
    for (const scenario of ["create", "replace", "mkdir", "delete"] as const) {
      it(`${scenario}: nothing outside memory is touched, whichever call the swap precedes`, async () => {
        // A clean run first: how many calls the change makes.
        const clean = setup(scenario, anchoring)
        let calls = 0
        const first = await clean.run(counting((n) => (calls = n + 1)))
        clean.dispose()
        expect(first).toEqual({ ok: true, tag: "ok" })
        expect(calls).toBeGreaterThan(5)

        const outcomes: Record<string, number> = {}
        for (let k = 0; k <= calls; k++) {
          const st = setup(scenario, anchoring)
          try {
            const before = snapshot(st.outside)
            const result = await st.run(counting((n) => {
              if (n === k) swap(st)
            }))
            outcomes[result.tag] = (outcomes[result.tag] ?? 0) + 1
            expect(snapshot(st.outside), `swap before call ${k}: ${result.tag}`).toEqual(before)
            if (anchoring === "descriptor") {
              // Descriptor anchoring cleans up inside the moved directory too: no temp file anywhere.
              expect(temps(st.attic), `swap before call ${k}`).toEqual([])
              expect(temps(st.memory), `swap before call ${k}`).toEqual([])
            }
            if (anchoring === "descriptor" && !result.ok && scenario === "replace") {
              // A refused replace leaves the old file, wherever its directory went (the undo puts it back).
              const moved = existsSync(join(st.attic, "sub")) ? join(st.attic, "sub", "a.md") : join(st.memory, "sub", "a.md")
              expect(readFileSync(moved, "utf8"), `swap before call ${k}: ${result.tag}`).toBe(OLD)
            }
            if (anchoring === "descriptor" && !result.ok && scenario !== "delete" && scenario !== "replace") {
              // A refused new file exists nowhere: neither in memory nor in the directory that was moved away (the
              // path scheme cannot find a directory that moved after publishing; it was memory's when written).
              const moved = join(st.attic, "sub", ...(scenario === "mkdir" ? ["new", "deeper"] : []), "x.md")
              expect(existsSync(moved), `swap before call ${k}`).toBe(false)
            }
          } finally {
            st.dispose()
          }
        }
        // Some swaps came late enough to be caught only by the pinned directory, not by the first check.
        expect(Object.keys(outcomes).filter((t) => t !== "ok").length, JSON.stringify(outcomes)).toBeGreaterThan(0)
        expect(outcomes["WriteRejected:path-changed"] ?? 0, JSON.stringify(outcomes)).toBeGreaterThan(0)
      })
    }
  })
}

describe("descriptor anchoring is what the writer uses here", () => {
  it("opens directories and works through /proc/self/fd", async () => {
    const st = setup("create", "auto")
    try {
      const paths: Array<string> = []
      const result = await st.run(counting((_n, op, args) => {
        if (op === "writeFile" || op === "link") paths.push(String(args[0]))
      }))
      expect(result.ok).toBe(true)
      expect(paths.length).toBeGreaterThan(0)
      for (const p of paths) expect(p).toMatch(/^\/proc\/self\/fd\/\d+\//)
    } finally {
      st.dispose()
    }
  })
})
