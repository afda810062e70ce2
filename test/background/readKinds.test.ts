/**
 * The background `read` opens only regular files: a device, a FIFO, a folder, and a link to a device are refused
 * with a sentence for the model before Pi's read runs (a FIFO with no writer would otherwise never return, /dev/zero
 * never end); a regular file still reads.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as pi from "@earendil-works/pi-coding-agent"
import { execFileSync } from "node:child_process"
import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { notRegular } from "../../layers/background/tools/read.ts"
import { makeTaskTools, type TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { tempDir } from "../support/tmp.ts"

const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))
afterAll(() => runtime.dispose())

const setup = async (): Promise<{ cwd: string; tools: TaskToolSet }> => {
  const base = realpathSync(tempDir("pm-read-kinds-"))
  const cwd = join(base, "project")
  const memoryDir = join(base, "memory")
  mkdirSync(cwd)
  mkdirSync(memoryDir)
  writeFileSync(join(cwd, "notes.txt"), "alpha\n")
  execFileSync("mkfifo", [join(cwd, "pipe")])
  symlinkSync("/dev/zero", join(cwd, "zero-link"))
  const tools = await runtime.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const guard = yield* BashGuard
      const task = yield* writer.openTask({ memoryDir, cwd, check: Effect.void })
      return yield* Effect.promise(() => makeTaskTools({ pi, cwd, memoryDir, writer: task, guard, check: Effect.void, onChange: () => Effect.void }))
    })
  )
  return { cwd, tools }
}

const read = (tools: TaskToolSet, path: string) => tools.byName("read")!.execute("read-1", { path }, new AbortController().signal)
const text = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

describe.skipIf(process.platform === "win32")("read refuses what is not a regular file", () => {
  it("/dev/zero, a FIFO, a folder and a link to a device are refused at once; a regular file reads", async () => {
    const { cwd, tools } = await setup()
    try {
      // Inside the task's scope, the kind of file decides.
      const socket = createServer()
      await new Promise<void>((resolve) => socket.listen(join(cwd, "sock"), resolve))
      const cases: Array<[string, RegExp]> = [
        [join(cwd, "pipe"), /is a FIFO/],
        [join(cwd, "sock"), /is a socket/],
        [cwd, /is a folder/]
      ]
      try {
        for (const [path, kind] of cases) {
          const r = await read(tools, path)
          expect(r.isError, path).toBe(true)
          expect(text(r)).toMatch(kind)
          expect(text(r)).toMatch(/^Refused: .* read opens only regular files/)
        }
      } finally {
        await new Promise((resolve) => socket.close(resolve))
      }
      // A device is outside every scope (/dev), named or through a link from the project: refused before it is opened.
      for (const path of ["/dev/zero", join(cwd, "zero-link")]) {
        const r = await read(tools, path)
        expect(r.isError, path).toBe(true)
        expect(text(r)).toMatch(/^Refused: .*outside the task's project/)
      }
      const ok = await read(tools, join(cwd, "notes.txt"))
      expect(ok.isError).not.toBe(true)
      expect(text(ok)).toContain("alpha")
    } finally {
      await tools.close("the test ended")
    }
  })

  it("names each kind of file that is not a regular one, a device included", () => {
    expect(notRegular(statSync("/dev/null"))).toBe("a device")
    expect(notRegular(statSync("/"))).toBe("a folder")
    expect(notRegular(statSync(import.meta.filename))).toBeUndefined()
  })
})
