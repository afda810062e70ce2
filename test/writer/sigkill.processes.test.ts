/** A process SIGKILLed while publishing large files: every file is old or new, never a mix. */
import { Effect } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { sleep, startWorker } from "../locks/processes.ts"
import { sandbox, temps, writerLayer } from "./support.ts"

const version = (label: string, size: number) =>
  `---\nname: ${label}\ndescription: version ${label}\nmetadata:\n  type: project\n---\n` +
  `${label.repeat(63)}\n`.repeat(Math.ceil(size / 64))

describe("SIGKILL during publishing", () => {
  it("leaves every file entirely old or entirely new", async () => {
    using s = sandbox()
    const old = version("o", 4_096)
    const contents = [version("x", 2 * 1024 * 1024), version("y", 2 * 1024 * 1024)]
    const contentFiles = contents.map((c, i) => {
      const path = join(s.root, `content-${i}`)
      writeFileSync(path, c)
      return path
    })
    // Three workers at a time, each on its own files, killed at staggered moments.
    const sets = [0, 1, 2].map((w) => ["a.md", "b.md", "c.md"].map((f) => join(s.memory, `w${w}-${f}`)))
    for (const f of sets.flat()) writeFileSync(f, old)

    let sawNew = 0
    for (const delayMs of [40, 250]) {
      const workers = sets.map((files) => startWorker("publish-loop", { memoryDir: s.memory, files, contentFiles }))
      await Promise.all(workers.map((w) => w.waitFor((l) => l["ready"] === true)))
      await Promise.all(workers.map(async (worker, i) => {
        await sleep(delayMs + i * 70 + Math.floor(Math.random() * 30))
        worker.child.kill("SIGKILL")
        expect(await worker.exited).toBe("SIGKILL")
      }))
      for (const f of sets.flat()) {
        const text = readFileSync(f, "utf8")
        const which = [old, ...contents].indexOf(text)
        expect(which, `${f} holds ${text.length} chars: a torn write`).toBeGreaterThanOrEqual(0)
        if (which > 0) sawNew++
      }
      expect(readdirSync(s.memory).filter((n) => n.endsWith(".md")).length).toBe(9)
    }
    expect(sawNew).toBeGreaterThan(0)

    // Temp files the killed processes left behind are swept (here: any age), every one of them and nothing else.
    const left = temps(s.memory).length
    const swept = await Effect.runPromise(
      Effect.flatMap(MemoryWriter, (w) => w.sweepTemps(s.memory, -1)).pipe(Effect.provide(writerLayer()))
    )
    expect(swept).toBe(left)
    expect(temps(s.memory)).toEqual([])
    expect(readdirSync(s.memory).filter((n) => n.endsWith(".md")).length).toBe(9)
  })
})
