/**
 * Staleness by content over real files: a recalled memory that cites a project file (`src/x.ts`) says so when the
 * file is gone or changed after the memory was written, and says nothing when it is unchanged; a cited path that
 * resolves outside the project (`..`, a symlink out, a folder linked out) is never looked at or reported.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, rmSync, symlinkSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { Recall } from "../../layers/recall/Recall.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { RECALL_CITED_PATHS_MAX } from "../../src/limits.ts"
import { emptyRecallState } from "../../src/recall/recallState.ts"
import { makeFaux } from "../selector/faux.ts"
import { tempDir, topicText, writeFileAt } from "../support/tmp.ts"

/** The memory's last write, on a whole second (file times are compared exactly). */
const WRITTEN = Math.floor(Date.now() / 1000) * 1000 - 3_600_000
const HOUR = 3_600_000

/** A project with `src/x.ts` older than the memory, and a memory folder holding one memory with `body`. */
const setup = (body: string) => {
  const base = tempDir("pm-cited-")
  const project = join(base, "project")
  writeFileAt(join(project, "src", "x.ts"), "export const x = 1\n", WRITTEN - HOUR)
  const memoryDir = join(base, "memory")
  writeFileAt(join(memoryDir, "build.md"), topicText({ name: "build", description: "how to build", type: "project", body }), WRITTEN)
  return { base, project, memoryDir }
}

const recall = (s: { project: string; memoryDir: string }, withRoot = true) =>
  Effect.flatMap(Recall, (r) =>
    r.recall({
      memoryDir: s.memoryDir,
      ...(withRoot ? { projectRoot: s.project } : {}),
      query: "how do we build",
      state: emptyRecallState,
      modelRef: "faux/faux-1",
      sessionId: "s",
      nowMs: WRITTEN + HOUR,
      select: ["build.md"]
    })
  ).pipe(
    Effect.map((out) => out.injection),
    Effect.provide(Recall.layer.pipe(Layer.provide(Layer.merge(MemoryStore.layer, makeFaux().selector)), Layer.provide(FileSystem.layer)))
  )

const BODY = "The entry point is `src/x.ts`. **Why:** one place. **How to apply:** edit it there."

describe("a recalled memory checked against the project as it is now", () => {
  it.effect("an unchanged cited file adds nothing; the same file changed after the memory adds a note naming it", () =>
    Effect.gen(function* () {
      const s = setup(BODY)
      const before = yield* recall(s)
      expect(before).toContain("The entry point is `src/x.ts`.")
      expect(before).not.toContain("Note:")
      // Changed at the very time of the memory's write: not after it.
      utimesSync(join(s.project, "src", "x.ts"), WRITTEN / 1000, WRITTEN / 1000)
      expect(yield* recall(s)).not.toContain("Note:")
      // Changed a second after the memory was written.
      utimesSync(join(s.project, "src", "x.ts"), (WRITTEN + 1000) / 1000, (WRITTEN + 1000) / 1000)
      const after = yield* recall(s)
      expect(after).toContain(`## ${join(s.memoryDir, "build.md")}\n\nNote: \`src/x.ts\` changed after this memory was written: check before relying on it.\n\n---`)
    }))

  it.effect("a cited file that was removed: the note says it no longer exists", () =>
    Effect.gen(function* () {
      const s = setup(BODY)
      rmSync(join(s.project, "src", "x.ts"))
      expect(yield* recall(s)).toContain("Note: `src/x.ts` no longer exists: check before relying on it.")
      // Its whole folder gone too: still inside the project, still gone.
      rmSync(join(s.project, "src"), { recursive: true })
      expect(yield* recall(s)).toContain("Note: `src/x.ts` no longer exists")
      // Without a project to check against (pm recall outside one), nothing is said.
      expect(yield* recall(s, false)).not.toContain("Note:")
    }))

  it.effect("a path that leaves the project is never reported: `..`, a symlink out, a folder linked out", () =>
    Effect.gen(function* () {
      const s = setup("See `../outside/new.ts`, `src/link.ts`, `src/out/missing.ts` and `src/out/new.ts`.")
      // Outside the project: a file newer than the memory, and a folder the project links to.
      writeFileAt(join(s.base, "outside", "new.ts"), "new\n", WRITTEN + HOUR)
      symlinkSync(join(s.base, "outside", "new.ts"), join(s.project, "src", "link.ts"))
      symlinkSync(join(s.base, "outside"), join(s.project, "src", "out"))
      expect(yield* recall(s)).not.toContain("Note:")
      // The same checks inside the project do report: the rules above are about leaving it.
      mkdirSync(join(s.project, "inside"))
      writeFileAt(join(s.project, "inside", "new.ts"), "new\n", WRITTEN + HOUR)
      rmSync(join(s.project, "src", "link.ts"))
      symlinkSync(join(s.project, "inside", "new.ts"), join(s.project, "src", "link.ts"))
      expect(yield* recall(s)).toContain("Note: `src/link.ts` changed after this memory was written")
    }))

  it.effect(`checks at most RECALL_CITED_PATHS_MAX (${RECALL_CITED_PATHS_MAX}) cited files of a memory, the first ones`, () =>
    Effect.gen(function* () {
      const cite = (n: number) => Array.from({ length: n }, (_, i) => `\`src/gone${i}.ts\``).join(", ")
      const above = yield* recall(setup(`Files: ${cite(RECALL_CITED_PATHS_MAX + 1)}.`))
      const note = /Note: (.*) no longer exist:/.exec(above)?.[1] ?? ""
      expect(note.match(/`src\/gone\d+\.ts`/g)).toHaveLength(RECALL_CITED_PATHS_MAX)
      expect(note).not.toContain(`gone${RECALL_CITED_PATHS_MAX}.ts`)
      const at = yield* recall(setup(`Files: ${cite(RECALL_CITED_PATHS_MAX)}.`))
      expect(/Note: (.*) no longer exist:/.exec(at)?.[1]?.match(/`src\/gone\d+\.ts`/g)).toHaveLength(RECALL_CITED_PATHS_MAX)
    }))
})
