/** The delete path end to end: BashGuard classifies, runDelete carries it out through MemoryWriter.remove on real files. */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync, lstatSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BashGuard, runDelete } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { tempDir } from "../support/tmp.ts"

const layer = Layer.mergeAll(BashGuard.layer, MemoryWriter.layer.pipe(Layer.provide(FileSystem.layer)))

const execute = (command: string, memoryDir: string) =>
  Effect.gen(function* () {
    const guard = yield* BashGuard
    const writer = yield* MemoryWriter
    const verdict = yield* guard.classify(command, { memoryDir, cwd: memoryDir })
    if (verdict.verdict !== "delete") return { verdict: verdict.verdict, outcome: undefined }
    const outcome = yield* runDelete(verdict, (path, { force }) => writer.remove(path, { memoryDir, force }), (e) => e.message)
    return { verdict: verdict.verdict, outcome }
  })

const memory = () => {
  const dir = realpathSync(tempDir())
  writeFileSync(join(dir, "old.md"), "old")
  writeFileSync(join(dir, "keep.md"), "keep")
  return dir
}

describe("delete executor over the write pipeline", () => {
  it.effect("removes the named memory files and nothing else", () => {
    const dir = memory()
    return execute(`rm ${join(dir, "old.md")}`, dir).pipe(
      Effect.tap(({ verdict, outcome }) => {
        expect(verdict).toBe("delete")
        expect(outcome).toMatchObject({ exitCode: 0, removed: [join(dir, "old.md")] })
        expect(existsSync(join(dir, "old.md"))).toBe(false)
        expect(existsSync(join(dir, "keep.md"))).toBe(true)
      }),
      Effect.provide(layer)
    )
  })

  it.effect("-f on a missing target succeeds without creating its parent; without -f it reports like rm", () => {
    const dir = memory()
    return Effect.gen(function* () {
      const forced = yield* execute(`rm -f ${join(dir, "sub", "gone.md")}`, dir)
      expect(forced.outcome).toMatchObject({ exitCode: 0 })
      expect(existsSync(join(dir, "sub"))).toBe(false)
      const plain = yield* execute(`rm ${join(dir, "gone.md")}`, dir)
      expect(plain.outcome?.exitCode).toBe(1)
      expect(plain.outcome?.output).toContain(`rm: cannot remove '${join(dir, "gone.md")}'`)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a symlink is removed itself, never its target outside memory", () => {
    const dir = memory()
    const outside = join(tempDir(), "precious.md")
    writeFileSync(outside, "precious")
    symlinkSync(outside, join(dir, "link.md"))
    return execute(`rm ${join(dir, "link.md")}`, dir).pipe(
      Effect.tap(({ outcome }) => {
        expect(outcome?.exitCode).toBe(0)
        expect(() => lstatSync(join(dir, "link.md"))).toThrow()
        expect(existsSync(outside)).toBe(true)
      }),
      Effect.provide(layer)
    )
  })

  it.effect("targets outside memory, in protected folders, or MEMORY.md never reach the file system", () => {
    const dir = memory()
    mkdirSync(join(dir, ".git"))
    writeFileSync(join(dir, ".git", "x.md"), "x")
    writeFileSync(join(dir, "MEMORY.md"), "- [Keep](keep.md)\n")
    return Effect.gen(function* () {
      for (const command of [`rm ${join(dir, ".git", "x.md")}`, `rm ${join(dir, "..", "elsewhere.md")}`, "rm /etc/passwd"]) {
        const r = yield* execute(command, dir)
        expect(r.verdict, command).toBe("rejected")
      }
      const index = yield* execute(`rm ${join(dir, "MEMORY.md")}`, dir)
      // Either the guard or the pipeline refuses the index; it must survive.
      if (index.outcome !== undefined) expect(index.outcome.exitCode).toBe(1)
      expect(existsSync(join(dir, "MEMORY.md"))).toBe(true)
      expect(existsSync(join(dir, ".git", "x.md"))).toBe(true)
    }).pipe(Effect.provide(layer))
  })
})
