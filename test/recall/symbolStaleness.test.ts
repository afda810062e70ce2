/**
 * Staleness by content for symbols and scripts, over real git repositories and real files: a recalled memory that
 * names a symbol (`parseConfig`) says so when no file of the project holds it any more (tracked files as they are in
 * the working tree, and untracked ones that are not ignored), and one that runs an npm script says so when
 * package.json no longer has it. Outside git, with git missing, or at the time bound, nothing is said.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall } from "../../layers/recall/Recall.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { RECALL_CITED_SYMBOLS_MAX, RECALL_PACKAGE_JSON_MAX_BYTES, RECALL_SYMBOL_CHECK_MS, RECALL_SYMBOL_CHECKS_MAX } from "../../src/limits.ts"
import { emptyRecallState } from "../../src/recall/recallState.ts"
import { makeFaux } from "../selector/faux.ts"
import { git, gitRepo, tempDir, topicText, writeFileAt } from "../support/tmp.ts"
import { alive, stallingGit } from "../history/fakeGit.ts"

const NOW = Date.now()

/** A project repository (committed `src/config.ts` defining `parseConfig`) and a memory folder with `memories`. */
const setup = (memories: Record<string, string>, inGit = true) => {
  const base = tempDir("pm-symbols-")
  const project = inGit ? gitRepo(base, "project") : join(base, "project")
  writeFileAt(join(project, "src", "config.ts"), "export const parseConfig = (text: string) => JSON.parse(text)\n")
  writeFileAt(join(project, "package.json"), JSON.stringify({ name: "shop", scripts: { build: "tsc", deploy: "node deploy.js" } }))
  if (inGit) {
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "config")
  }
  const memoryDir = join(base, "memory")
  for (const [name, body] of Object.entries(memories)) {
    writeFileAt(join(memoryDir, name), topicText({ name, description: `about ${name}`, type: "project", body }))
  }
  return { base, project, memoryDir, select: Object.keys(memories) }
}

const recall = (s: { project: string; memoryDir: string; select: ReadonlyArray<string> }) =>
  Effect.flatMap(Recall, (r) =>
    r.recall({
      memoryDir: s.memoryDir,
      projectRoot: s.project,
      query: "how is the config read",
      state: emptyRecallState,
      modelRef: "faux/faux-1",
      sessionId: "s",
      nowMs: NOW,
      select: s.select
    })
  ).pipe(
    Effect.map((out) => out.injection),
    Effect.provide(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, makeFaux().selector)), Layer.provide(FileSystem.layer)))
  )

/** Runs `effect` with PATH set to `path` (git missing, or a git that never answers), then restores it. */
const withPath = <A, E, R>(path: string, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const old = process.env["PATH"]
      process.env["PATH"] = path
      return old
    }),
    () => effect,
    (old) => Effect.sync(() => void (process.env["PATH"] = old))
  )

const CONFIG = { "config.md": "The config is parsed by `parseConfig`. **Why:** one place." }
const GONE = "Note: `parseConfig` no longer appears in the project: check before relying on it."

describe("a recalled memory's symbols, checked against the project's files as they are now", () => {
  it.effect("a symbol in a tracked file adds nothing; removed from the working tree (not yet committed), the note names it", () =>
    Effect.gen(function* () {
      const s = setup(CONFIG)
      expect(yield* recall(s)).not.toContain("Note:")
      // Renamed in the working tree only: git grep reads the files as they are, not the last commit.
      writeFileSync(join(s.project, "src", "config.ts"), "export const readConfig = (text: string) => JSON.parse(text)\n")
      expect(yield* recall(s)).toContain(`## ${join(s.memoryDir, "config.md")}\n\n${GONE}`)
      // Committed: still gone. A word that only contains it (`parseConfigFile`) is not it.
      writeFileSync(join(s.project, "src", "config.ts"), "export const parseConfigFile = 1\n")
      git(s.project, "commit", "-qam", "rename")
      expect(yield* recall(s)).toContain(GONE)
    }))

  it.effect("an untracked file that is not ignored counts as the project's; an ignored one, or a binary one, does not", () =>
    Effect.gen(function* () {
      const s = setup(CONFIG)
      git(s.project, "rm", "-q", "src/config.ts")
      writeFileAt(join(s.project, "build", "out.js"), "const parseConfig = 1\n")
      writeFileAt(join(s.project, "img", "blob.bin"), Buffer.from("\u0000parseConfig\u0000", "latin1"))
      writeFileAt(join(s.project, ".gitignore"), "build/\n")
      expect(yield* recall(s)).toContain(GONE)
      writeFileAt(join(s.project, "src", "new.ts"), "export const parseConfig = 2\n")
      expect(yield* recall(s)).not.toContain("Note:")
    }))

  it.effect("outside git, with git missing, or when git runs past the time bound: nothing is said", () =>
    Effect.gen(function* () {
      const plain = setup(CONFIG, false)
      rmSync(join(plain.project, "src", "config.ts"))
      expect(yield* recall(plain)).not.toContain("Note:")
      const s = setup(CONFIG)
      rmSync(join(s.project, "src", "config.ts"))
      expect(yield* recall(s)).toContain(GONE)
      // No git on PATH.
      const empty = tempDir("pm-nogit-")
      expect(yield* withPath(empty, recall(s))).not.toContain("Note:")
      // A git that never answers still runs 1 ms before RECALL_SYMBOL_CHECK_MS, is stopped (and gone) at it, and says nothing.
      const slow = stallingGit()
      const said = yield* withPath(
        slow.dir,
        Effect.gen(function* () {
          const running = yield* Effect.fork(recall(s))
          const pid = yield* Effect.promise(() => slow.pid())
          yield* TestClock.adjust(RECALL_SYMBOL_CHECK_MS - 1)
          yield* Effect.yieldNow()
          expect(yield* Fiber.poll(running)).toMatchObject({ _tag: "None" })
          expect(alive(pid)).toBe(true)
          yield* TestClock.adjust(1)
          const text = yield* Fiber.join(running)
          expect(alive(pid)).toBe(false)
          return text
        })
      )
      expect(said).not.toContain("Note:")
    }))

  it.effect(`at most RECALL_CITED_SYMBOLS_MAX (${RECALL_CITED_SYMBOLS_MAX}) per memory and RECALL_SYMBOL_CHECKS_MAX (${RECALL_SYMBOL_CHECKS_MAX}) per recall`, () =>
    Effect.gen(function* () {
      const cite = (from: number, n: number) => Array.from({ length: n }, (_, i) => `\`goneSymbol${from + i}\``).join(", ")
      const notes = (text: string) => [...text.matchAll(/Note: (.*) no longer appears? in the project/g)].map((m) => m[1]!.match(/`goneSymbol\d+`/g) ?? [])
      // Per memory: at, and above (the first ones).
      const at = yield* recall(setup({ "a.md": `Uses ${cite(0, RECALL_CITED_SYMBOLS_MAX)}.` }))
      expect(notes(at)[0]).toHaveLength(RECALL_CITED_SYMBOLS_MAX)
      const above = yield* recall(setup({ "a.md": `Uses ${cite(0, RECALL_CITED_SYMBOLS_MAX + 1)}.` }))
      expect(notes(above)[0]).toHaveLength(RECALL_CITED_SYMBOLS_MAX)
      expect(notes(above)[0]).not.toContain(`\`goneSymbol${RECALL_CITED_SYMBOLS_MAX}\``)
      // Per recall, over two memories in selection order: below and at the bound every one is checked, above it the
      // second memory's last one is not.
      const per = RECALL_CITED_SYMBOLS_MAX
      const two = (total: number) => setup({ "a.md": `Uses ${cite(0, per)}.`, "b.md": `Uses ${cite(per, total - per)}.` })
      for (const total of [RECALL_SYMBOL_CHECKS_MAX - 1, RECALL_SYMBOL_CHECKS_MAX]) {
        expect(notes(yield* recall(two(total))).flat()).toHaveLength(total)
      }
      const over = notes(yield* recall(two(RECALL_SYMBOL_CHECKS_MAX + 1)))
      expect(over.flat()).toHaveLength(RECALL_SYMBOL_CHECKS_MAX)
      expect(over[1]).not.toContain(`\`goneSymbol${RECALL_SYMBOL_CHECKS_MAX}\``)
    }), 30_000)
})

describe("a recalled memory's npm scripts, checked against package.json as it is now", () => {
  const DEPLOY = { "deploy.md": "Deploy with `npm run deploy`, after `npm run build`." }

  it.effect("a script package.json has adds nothing; one removed from it is named", () =>
    Effect.gen(function* () {
      const s = setup(DEPLOY)
      expect(yield* recall(s)).not.toContain("Note:")
      writeFileSync(join(s.project, "package.json"), JSON.stringify({ name: "shop", scripts: { build: "tsc" } }))
      expect(yield* recall(s)).toContain("Note: package.json no longer has the `deploy` script: check before relying on it.")
      // No scripts at all: both gone.
      writeFileSync(join(s.project, "package.json"), JSON.stringify({ name: "shop" }))
      expect(yield* recall(s)).toContain("Note: package.json no longer has the `deploy` and `build` scripts")
    }))

  it.effect("no package.json, one that does not parse, one linked from outside, or a workspace's root: nothing is said", () =>
    Effect.gen(function* () {
      const s = setup(DEPLOY)
      writeFileSync(join(s.project, "package.json"), "{ not json")
      expect(yield* recall(s)).not.toContain("Note:")
      writeFileSync(join(s.project, "package.json"), JSON.stringify({ name: "shop", workspaces: ["web"], scripts: {} }))
      expect(yield* recall(s)).not.toContain("Note:")
      writeFileSync(join(s.project, "package.json"), JSON.stringify({ name: "shop", scripts: {} }))
      writeFileSync(join(s.project, "pnpm-workspace.yaml"), "packages: [web]\n")
      expect(yield* recall(s)).not.toContain("Note:")
      rmSync(join(s.project, "pnpm-workspace.yaml"))
      expect(yield* recall(s)).toContain("package.json no longer has the `deploy` and `build` scripts")
      // A package.json that links out of the project is not read.
      writeFileAt(join(s.base, "outside.json"), JSON.stringify({ name: "other", scripts: {} }))
      rmSync(join(s.project, "package.json"))
      symlinkSync(join(s.base, "outside.json"), join(s.project, "package.json"))
      expect(yield* recall(s)).not.toContain("Note:")
      rmSync(join(s.project, "package.json"))
      expect(yield* recall(s)).not.toContain("Note:")
    }))
  it.effect(`a package.json of RECALL_PACKAGE_JSON_MAX_BYTES (${RECALL_PACKAGE_JSON_MAX_BYTES}) or fewer is read; a larger one is not`, () =>
    Effect.gen(function* () {
      const s = setup(DEPLOY)
      const of = (n: number) => {
        const json = JSON.stringify({ name: "shop", scripts: { build: "tsc" } })
        return json.slice(0, -1) + " ".repeat(n - json.length) + "}"
      }
      for (const n of [RECALL_PACKAGE_JSON_MAX_BYTES - 1, RECALL_PACKAGE_JSON_MAX_BYTES]) {
        writeFileSync(join(s.project, "package.json"), of(n))
        expect(yield* recall(s)).toContain("package.json no longer has the `deploy` script")
      }
      writeFileSync(join(s.project, "package.json"), of(RECALL_PACKAGE_JSON_MAX_BYTES + 1))
      expect(yield* recall(s)).not.toContain("Note:")
    }))
})
