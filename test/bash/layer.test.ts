/** The BashGuard layer: locating the wasm files, loading once, releasing the parser, and the delete executor. */
import { describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Language, Parser } from "web-tree-sitter"
import { BashGuard, runDelete } from "../../layers/safety/BashGuard.ts"
import { BashParserLoadError, GRAMMAR_WASM, locateWasm, RUNTIME_WASM } from "../../layers/safety/bashWasm.ts"

describe("locateWasm", () => {
  it("finds both files in node_modules when running from source", () => {
    expect(locateWasm(RUNTIME_WASM)).toMatch(/node_modules\/web-tree-sitter\/web-tree-sitter\.wasm$/)
    expect(locateWasm(GRAMMAR_WASM)).toMatch(/node_modules\/tree-sitter-bash\/tree-sitter-bash\.wasm$/)
  })

  it("prefers the copy beside the running module (the bundle in dist/), and finds nothing where neither exists", () => {
    const dir = mkdtempSync(join(tmpdir(), "pm-wasm-"))
    try {
      const moduleUrl = pathToFileURL(join(dir, "pm.js")).href
      expect(locateWasm(GRAMMAR_WASM, moduleUrl)).toBeUndefined()
      copyFileSync(locateWasm(GRAMMAR_WASM)!, join(dir, GRAMMAR_WASM))
      expect(locateWasm(GRAMMAR_WASM, moduleUrl)).toBe(join(dir, GRAMMAR_WASM))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the load error says which file and why", () => {
    const e = new BashParserLoadError({ file: GRAMMAR_WASM, detail: "not found" })
    expect(e.message).toBe("cannot load the bash parser (tree-sitter-bash.wasm): not found")
    expect(e._tag).toBe("BashParserLoadError")
  })
})

describe("BashGuard.layer", () => {
  it.effect("loads the grammar once per process: later builds reuse it and only create and free a Parser", () =>
    Effect.gen(function* () {
      // Counted, not timed (bench/bashguard.ts has the figures). Each test file runs in a fresh module graph, so
      // nothing has loaded the grammar before this test.
      const init = vi.spyOn(Parser, "init")
      const load = vi.spyOn(Language, "load")
      const setLanguage = vi.spyOn(Parser.prototype, "setLanguage")
      const free = vi.spyOn(Parser.prototype, "delete")
      try {
        const build = Effect.scoped(Layer.build(BashGuard.layer))
        for (let i = 0; i < 6; i++) yield* build
        expect(init).toHaveBeenCalledTimes(1)
        expect(load).toHaveBeenCalledTimes(1)
        expect(setLanguage).toHaveBeenCalledTimes(6)
        expect(free).toHaveBeenCalledTimes(6)
      } finally {
        vi.restoreAllMocks()
      }
    })
  )

  it.effect("frees its parser when the scope closes: the guard stops working afterwards", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const ctx = yield* Layer.buildWithScope(BashGuard.layer, scope)
      const guard = ctx.unsafeMap.get(BashGuard.key) as typeof BashGuard.Service
      expect(guard.classifySync("ls", { cwd: "/" })).toEqual({ verdict: "read-only" })
      yield* Scope.close(scope, Exit.void)
      // A deleted parser cannot parse: the guard fails closed, with a rejection.
      expect(guard.classifySync("ls", { cwd: "/" }).verdict).toBe("rejected")
    })
  )

  it.effect("layerConstant answers every command the same (for consumers' tests)", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      expect(yield* guard.classify("anything", { cwd: "/" })).toEqual({ verdict: "rejected", reason: "no" })
    }).pipe(Effect.provide(BashGuard.layerConstant({ verdict: "rejected", reason: "no" })))
  )
})

describe("runDelete", () => {
  it.effect("removes each target through the given remover with the force flag, and goes on after a failure like rm", () =>
    Effect.gen(function* () {
      const calls: Array<string> = []
      const remove = (path: string, options: { readonly force: boolean }) =>
        Effect.suspend(() => {
          calls.push(`${path}:${options.force}`)
          return path.endsWith("missing.md") ? Effect.fail("No such file or directory") : Effect.void
        })
      const outcome = yield* runDelete(
        { verdict: "delete", targets: ["/m/a.md", "/m/missing.md", "/m/b.md"], force: false },
        remove,
        (e) => e
      )
      expect(calls).toEqual(["/m/a.md:false", "/m/missing.md:false", "/m/b.md:false"])
      expect(outcome).toEqual({
        output: "rm: cannot remove '/m/missing.md': No such file or directory\n",
        exitCode: 1,
        removed: ["/m/a.md", "/m/b.md"]
      })
      const ok = yield* runDelete({ verdict: "delete", targets: ["/m/a.md"], force: true }, remove, (e) => e)
      expect(ok).toEqual({ output: "", exitCode: 0, removed: ["/m/a.md"] })
      expect(calls.at(-1)).toBe("/m/a.md:true")
    })
  )
})
