/** Recall over real topic files and pi-ai's fake provider: gates, budget across calls, suppression, rendering, state. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readFileSync, rmSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall, type RecallRequest } from "../../layers/recall/Recall.ts"
import { BRANCH_RECALL_BUDGET } from "../../src/limits.ts"
import { emptyRecallState, withRead, type BranchRecallState } from "../../src/recall/recallState.ts"
import { conversationOf, errorReply, makeFaux, toolReply, type FauxHarness } from "../selector/faux.ts"
import { tempDir, topicText, writeFileAt } from "../support/tmp.ts"

const NOW = Date.now()
const DAY = 86_400_000

/** Five topics of about 4,000 bytes each (whole, never truncated) and two small ones, one of them stale. */
const memoryDir = (): string => {
  const dir = tempDir("pm-recall-")
  for (const n of ["big1", "big2", "big3", "big4", "big5"]) {
    const body = Array.from({ length: 10 }, (_, i) => `${n} line ${i} `.padEnd(380, "x")).join("\n")
    writeFileAt(join(dir, `${n}.md`), topicText({ name: n, description: `Big topic ${n}`, type: "reference", body }), NOW - DAY)
  }
  writeFileAt(join(dir, "release.md"), topicText({ name: "Release", description: "How we release", type: "project", body: "Tag from main." }), NOW - DAY)
  writeFileAt(join(dir, "old.md"), topicText({ name: "Old", description: "An old note", type: "project", body: "Old body." }), NOW - 3 * DAY)
  return dir
}

const layerFor = (faux: FauxHarness) =>
  Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, faux.selector)), Layer.provide(FileSystem.layer))

const recall = (faux: FauxHarness, r: Partial<RecallRequest> & { memoryDir: string }) =>
  Effect.flatMap(Recall, (s) =>
    s.recall({ query: "how do we release", state: emptyRecallState, modelRef: "faux/faux-1", sessionId: "s", nowMs: NOW, ...r })
  ).pipe(Effect.provide(layerFor(faux)))

describe("Recall: the whitespace threshold gates the selector", () => {
  it.effect.each(["hello", "  hello  ", "", "\n"])("%j never calls the selector", (query) => {
    const faux = makeFaux()
    faux.script(toolReply(["release.md"]))
    return recall(faux, { memoryDir: memoryDir(), query }).pipe(
      Effect.tap((out) => {
        expect(faux.callCount()).toBe(0)
        expect(out).toMatchObject({ selected: [], injection: "", budgetUsed: 0, warnings: [], called: false })
        expect(out.state).toBe(emptyRecallState)
      })
    )
  })

  it.effect("\"hello world\" calls it, with the trimmed query", () => {
    const faux = makeFaux()
    faux.script(toolReply(["release.md"]))
    return recall(faux, { memoryDir: memoryDir(), query: "  hello world \n" }).pipe(
      Effect.tap((out) => {
        expect(faux.callCount()).toBe(1)
        expect(out.called).toBe(true)
        expect(conversationOf(faux.requests[0]!).at(-1)!.text.endsWith("User message:\nhello world")).toBe(true)
        expect(out.state.history).toStrictEqual([{ query: "hello world", selected: ["release.md"] }])
      })
    )
  })
})

describe("Recall: from selection to injection", () => {
  it.effect("renders the selected files with path headings and a staleness note for the old one, and advances the state", () => {
    const faux = makeFaux()
    faux.script(toolReply(["[project] old.md", "release.md", "missing.md"]))
    const dir = memoryDir()
    return recall(faux, { memoryDir: dir }).pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual(["old.md", "release.md"])
        expect(out.warnings).toStrictEqual([])
        const oldText = readFileSync(join(dir, "old.md"), "utf8").trim()
        const releaseText = readFileSync(join(dir, "release.md"), "utf8").trim()
        expect(out.injection).toContain(`## ${join(dir, "old.md")}\n\nNote: This memory was last changed 3 days ago.`)
        expect(out.injection).toContain(`## ${join(dir, "release.md")}\n\n${releaseText}`)
        expect(out.injection).not.toMatch(/release\.md\n\nNote:/)
        expect(out.budgetUsed).toBe(oldText.length + releaseText.length)
        expect(out.state.budgetUsed).toBe(out.budgetUsed)
        expect(out.state.history).toStrictEqual([{ query: "how do we release", selected: ["old.md", "release.md"] }])
      })
    )
  })

  it.effect("a selector failure: no injection, one warning, and nothing added to the history", () => {
    const faux = makeFaux()
    faux.script(errorReply("overloaded"))
    return recall(faux, { memoryDir: memoryDir() }).pipe(
      Effect.tap((out) => {
        expect(out).toMatchObject({ selected: [], injection: "", budgetUsed: 0, called: true, answered: false })
        expect(out.warnings).toStrictEqual(["Memory recall skipped: the request failed: overloaded."])
        // The model never answered this query, so later requests must not show it an answer it did not give.
        expect(out.state.history).toStrictEqual([])
        expect(out.state.budgetUsed).toBe(0)
      })
    )
  })

  it.effect("a selected file that vanished before the read: a warning, the others still rendered", () => {
    const faux = makeFaux()
    const dir = memoryDir()
    faux.script(() => {
      rmSync(join(dir, "old.md"))
      return toolReply(["old.md", "release.md"])
    })
    return recall(faux, { memoryDir: dir }).pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual(["release.md"])
        expect(out.warnings).toHaveLength(1)
        expect(out.warnings[0]).toMatch(/^Memory old\.md was selected but could not be read/)
      })
    )
  })

  it.effect("--select mode renders exactly the files given without any model request", () => {
    const faux = makeFaux()
    faux.script(toolReply(["old.md"]))
    return recall(faux, { memoryDir: memoryDir(), query: "x", select: ["release.md"] }).pipe(
      Effect.tap((out) => {
        expect(faux.callCount()).toBe(0)
        expect(out.called).toBe(false)
        expect(out.selected).toStrictEqual(["release.md"])
      })
    )
  })
})

describe("Recall: the branch budget", () => {
  it.effect("at 61,439 units used the selector is called; at 61,440 it is not", () =>
    Effect.gen(function* () {
      const dir = memoryDir()
      const under = makeFaux()
      under.script(toolReply(["release.md"]))
      const a = yield* recall(under, { memoryDir: dir, state: { ...emptyRecallState, budgetUsed: BRANCH_RECALL_BUDGET - 1 } })
      expect(under.callCount()).toBe(1)
      // The request that starts under the budget gets its selection whole.
      expect(a.selected).toStrictEqual(["release.md"])
      expect(a.state.budgetUsed).toBeGreaterThan(BRANCH_RECALL_BUDGET)

      const at = makeFaux()
      at.script(toolReply(["release.md"]))
      const b = yield* recall(at, { memoryDir: dir, state: { ...emptyRecallState, budgetUsed: BRANCH_RECALL_BUDGET } })
      expect(at.callCount()).toBe(0)
      expect(b).toMatchObject({ selected: [], injection: "", called: false, warnings: [] })
    })
  )

  it.effect("across several calls: the request that crosses the budget is the last one", () =>
    Effect.gen(function* () {
      const dir = memoryDir()
      const faux = makeFaux()
      const five = ["big1.md", "big2.md", "big3.md", "big4.md", "big5.md"]
      faux.script(...Array.from({ length: 10 }, () => toolReply(five)))
      let state: BranchRecallState = emptyRecallState
      const used: Array<number> = []
      for (let i = 0; i < 8; i++) {
        const before = faux.callCount()
        const out = yield* recall(faux, { memoryDir: dir, query: `question number ${i}`, state })
        if (faux.callCount() === before) break
        used.push(out.budgetUsed)
        state = out.state
        // Changed since they were injected: the next call may inject them again (unchanged, they would be skipped).
        for (const f of five) utimesSync(join(dir, f), new Date(), new Date(NOW + (i + 1) * 1000))
      }
      // Each call injects the five big topics whole (about 20,000 units); the fourth crosses 61,440 and is the last.
      expect(used).toHaveLength(4)
      expect(new Set(used).size).toBe(1)
      expect(used[0]).toBeGreaterThan(BRANCH_RECALL_BUDGET / 4)
      expect(used[0]! * 3).toBeLessThan(BRANCH_RECALL_BUDGET)
      expect(state.budgetUsed).toBe(used[0]! * 4)
      expect(faux.callCount()).toBe(4)
      expect(state.history).toHaveLength(4)
    })
  )
})

describe("Recall: files read in full on the branch", () => {
  it.effect("are suppressed while unchanged and recalled again once modified", () =>
    Effect.gen(function* () {
      const dir = memoryDir()
      const path = join(dir, "release.md")
      const first = yield* Effect.flatMap(MemoryStore, (s) => s.scanTopics(dir)).pipe(Effect.provide(MemoryStore.layer), Effect.provide(FileSystem.layer))
      const release = first.topics.find((t) => t.filename === "release.md")!
      const state = withRead(emptyRecallState, { filename: "release.md", mtimeMs: release.fileMtimeMs })

      const same = makeFaux()
      same.script(toolReply(["release.md", "old.md"]))
      const a = yield* recall(same, { memoryDir: dir, state })
      expect(a.selected).toStrictEqual(["old.md"])

      utimesSync(path, new Date(), new Date(NOW + 5000))
      const changed = makeFaux()
      changed.script(toolReply(["release.md", "old.md"]))
      const b = yield* recall(changed, { memoryDir: dir, state })
      expect(b.selected).toStrictEqual(["release.md", "old.md"])
    })
  )
})

describe("Recall: files already injected on the branch", () => {
  it.effect("are not injected again while unchanged (nor charged), and are once modified", () =>
    Effect.gen(function* () {
      const dir = memoryDir()
      const first = makeFaux()
      first.script(toolReply(["release.md"]))
      const a = yield* recall(first, { memoryDir: dir, query: "how do we release" })
      expect(a.selected).toStrictEqual(["release.md"])
      expect(a.budgetUsed).toBeGreaterThan(0)

      const again = makeFaux()
      again.script(toolReply(["release.md", "old.md"]))
      const b = yield* recall(again, { memoryDir: dir, query: "and how do we release a hotfix", state: a.state })
      expect(b.selected).toStrictEqual(["old.md"])
      expect(b.injection).not.toContain("release.md")
      expect(b.state.budgetUsed).toBe(a.budgetUsed + b.budgetUsed)

      utimesSync(join(dir, "release.md"), new Date(), new Date(NOW + 7000))
      const changed = makeFaux()
      changed.script(toolReply(["release.md"]))
      const c = yield* recall(changed, { memoryDir: dir, query: "the release once more please", state: b.state })
      expect(c.selected).toStrictEqual(["release.md"])
    })
  )
})

describe("Recall: the catalog follows the files across requests on one store", () => {
  it.effect("an edited description, a new topic and a removed one show in the next request's catalog", () => {
    const faux = makeFaux()
    faux.script(toolReply(["release.md"]), toolReply(["release.md"]))
    const dir = memoryDir()
    const ask = Effect.flatMap(Recall, (s) =>
      s.recall({ query: "how do we release", state: emptyRecallState, modelRef: "faux/faux-1", sessionId: "s", nowMs: NOW, memoryDir: dir })
    )
    const catalogOfRequest = (i: number) => conversationOf(faux.requests[i]!).at(-1)!.text
    return Effect.gen(function* () {
      yield* ask
      expect(catalogOfRequest(0)).toContain("release.md")
      expect(catalogOfRequest(0)).toContain("How we release")
      // Rewritten in place with the same size is caught by ctime; here the size changes too, as an editor would.
      writeFileAt(join(dir, "release.md"), topicText({ name: "Release", description: "Release from the release branch", type: "project", body: "Tag." }), NOW - DAY)
      writeFileAt(join(dir, "deploy.md"), topicText({ name: "Deploy", description: "How we deploy", type: "project", body: "Push." }), NOW - DAY)
      rmSync(join(dir, "old.md"))
      yield* ask
      const second = catalogOfRequest(1)
      expect(second).toContain("Release from the release branch")
      expect(second).not.toContain("How we release")
      expect(second).toContain("deploy.md")
      expect(second).not.toContain("old.md")
      // The unchanged topics read the same in both requests (their lines are reused, not rebuilt differently).
      const bigLines = (text: string) => text.split("\n").filter((l) => l.includes("big"))
      expect(bigLines(second)).toStrictEqual(bigLines(catalogOfRequest(0)))
    }).pipe(Effect.provide(layerFor(faux)))
  })
})
