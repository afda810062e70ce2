/**
 * `pm remember`, `pm forget` and `pm undo` (real dist/pm.js processes) on an index that is large or odd: a 50 MB
 * MEMORY.md and one holding bytes that are not UTF-8, CRLF line ends, a BOM and NUL survive byte for byte but for
 * the line each command means to change; one larger than a command rewrites is refused with the reason before
 * anything changes. Large files are written and read through the thread pool (test/README.md, "On a loaded machine").
 */
import * as Effect from "effect/Effect"
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs"
import { readFile, truncate, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { indexForRewrite } from "../../layers/memory/indexRewrite.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { MEMORY_REWRITE_MAX_BYTES } from "../../src/limits.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

beforeAll(() => ensureBuilt())

const project = async () => {
  const agent = tempAgent()
  const repo = gitRepo()
  const r = await runPm(["project", "--json", "--cwd", repo], agent)
  expect(r.code).toBe(0)
  const p = JSON.parse(r.stdout) as Record<string, string>
  const memoryDir = p["memoryDir"]!
  mkdirSync(memoryDir, { recursive: true })
  return { ...agent, repo, memoryDir, index: join(memoryDir, "MEMORY.md") }
}

const topic = (name: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${name} body\n`

const b = (...parts: ReadonlyArray<string | ReadonlyArray<number> | Buffer>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))))

/** About 50 MB of index lines linking topics that do not exist, with `middle` (a line of a real topic) half-way. */
const bigIndex = (middle: string): Buffer => {
  const lines: Array<string> = []
  for (let i = 0; i < 500_000; i++) {
    lines.push(`- [Topic number ${i}](t${i}.md) - a hook long enough to make each line near a hundred bytes, ${i}\n`)
    if (i === 250_000) lines.push(middle)
  }
  return Buffer.from(lines.join(""))
}

const BAD = [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]

/** remember adds one line; undo takes it back; forget removes the kept topic's line; undo brings it back: each exact. */
const roundTrip = async (s: Awaited<ReturnType<typeof project>>, original: Buffer) => {
  const remembered = await runPm(["remember", "deploys happen on fridays", "--json", "--cwd", s.repo], s)
  expect(remembered.code, remembered.stderr).toBe(0)
  const added = b("- [deploys happen on fridays](deploys-happen-on-fridays.md)")
  const end = original.includes("\r\n") ? "\r\n" : "\n"
  const after = await readFile(s.index)
  expect(after.length).toBe(original.length + added.length + end.length)
  expect(after.equals(b(original, added, end))).toBe(true)

  const undone = await runPm(["undo", "--cwd", s.repo], s)
  expect(undone.code, undone.stderr).toBe(0)
  expect((await readFile(s.index)).equals(original)).toBe(true)
  expect(existsSync(join(s.memoryDir, "deploys-happen-on-fridays.md"))).toBe(false)

  const forgot = await runPm(["forget", "kept", "--json", "--cwd", s.repo], s)
  expect(forgot.code, forgot.stderr).toBe(0)
  expect(JSON.parse(forgot.stdout)).toMatchObject({ forgotten: ["kept.md"], indexLinesRemoved: 1 })
  const line = original.indexOf("- [Kept](kept.md)")
  const lineEnd = original.indexOf("\n", line) + 1
  expect((await readFile(s.index)).equals(b(original.subarray(0, line), original.subarray(lineEnd)))).toBe(true)

  const restored = await runPm(["undo", "--cwd", s.repo], s)
  expect(restored.code, restored.stderr).toBe(0)
  expect((await readFile(s.index)).equals(original)).toBe(true)
  expect(existsSync(join(s.memoryDir, "kept.md"))).toBe(true)
  return { remembered, forgot }
}

describe("an index rewritten by a command keeps every byte it did not mean to change", () => {
  it("a 50 MB MEMORY.md survives pm remember, pm undo, pm forget and pm undo, and the person is told how long undo lasts", async () => {
    const s = await project()
    await writeFile(join(s.memoryDir, "kept.md"), topic("Kept"))
    const original = bigIndex("- [Kept](kept.md) - the one real topic\n")
    expect(original.length).toBeGreaterThan(50_000_000)
    await writeFile(s.index, original)
    const { remembered, forgot } = await roundTrip(s, original)
    // Over the journal's 20 MiB of previous content: said, in a sentence.
    expect(JSON.parse(remembered.stdout).note).toMatch(/^MEMORY\.md is [\d,]+ bytes, more than the 20,971,520 bytes of previous content/)
    expect(JSON.parse(forgot.stdout).note).toMatch(/this change can be undone until the next change of memory/)
  })

  it("an index holding bytes that are not UTF-8, CRLF line ends, a BOM and NUL survives the same commands", async () => {
    const s = await project()
    await writeFile(join(s.memoryDir, "kept.md"), topic("Kept"))
    const original = b([0xef, 0xbb, 0xbf], "# Memory\r\n", "- [Odd ", BAD, "](odd.md) - ", BAD, "\r\n", [0], "\r\n", "- [Kept](kept.md) - kept\r\n", "- tail ", [0xfe], "\r\n")
    await writeFile(s.index, original)
    const { remembered } = await roundTrip(s, original)
    expect(JSON.parse(remembered.stdout).note).toBeUndefined()
  })

  it("an index without a line end at its end gets one before the new line, and nothing else", async () => {
    const s = await project()
    const original = b("- [A](a.md) ", BAD)
    await writeFile(s.index, original)
    expect((await runPm(["remember", "tabs over spaces", "--cwd", s.repo], s)).code).toBe(0)
    expect((await readFile(s.index)).equals(b(original, "\n- [tabs over spaces](tabs-over-spaces.md)\n"))).toBe(true)
  })
})

describe("an index a command cannot rewrite", () => {
  it("pm remember and pm forget refuse one larger than MEMORY_REWRITE_MAX_BYTES with the reason and change nothing", async () => {
    const s = await project()
    await writeFile(join(s.memoryDir, "kept.md"), topic("Kept"))
    await writeFile(s.index, "- [Kept](kept.md)\n")
    // Sparse: one byte over the limit costs no disk.
    await truncate(s.index, MEMORY_REWRITE_MAX_BYTES + 1)
    const before = statSync(s.index)
    const names = readdirSync(s.memoryDir).sort()
    const message = "pm: MEMORY.md is 67,108,865 bytes, more than the 67,108,864 a command rewrites; nothing was changed. " +
      "Shorten it by hand (sessions load only its first 200 lines) and run the command again.\n"
    for (const args of [["remember", "a new fact"], ["forget", "kept"]]) {
      const r = await runPm([...args, "--cwd", s.repo], s)
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(message)
      expect(readdirSync(s.memoryDir).sort()).toEqual(names)
      const now = statSync(s.index)
      expect([now.size, now.mtimeMs, now.ino]).toEqual([before.size, before.mtimeMs, before.ino])
    }
    expect((await runPm(["log", "--cwd", s.repo], s)).stdout).toBe("No changes recorded.\n")
  })

  it("an index that cannot be read (a folder named MEMORY.md) refuses both commands before anything changes", async () => {
    const s = await project()
    await writeFile(join(s.memoryDir, "kept.md"), topic("Kept"))
    mkdirSync(s.index)
    for (const args of [["remember", "a new fact"], ["forget", "kept"]]) {
      const r = await runPm([...args, "--cwd", s.repo], s)
      expect(r.code).toBe(2)
      expect(r.stderr).toBe("pm: MEMORY.md cannot be read (a directory), so the command cannot change it; nothing was changed.\n")
      expect(readdirSync(s.memoryDir).sort()).toEqual(["MEMORY.md", "kept.md"])
    }
  })

  it("indexForRewrite reads a file of the limit and one byte less whole, and refuses one byte more", async () => {
    const fs = makeNodeFileSystem()
    const dir = tempDir("pm-rewrite-")
    const limit = 1_000
    for (const size of [limit - 1, limit, limit + 1]) {
      await writeFile(join(dir, "MEMORY.md"), Buffer.alloc(size, 0x61))
      const read = await Effect.runPromise(Effect.either(indexForRewrite(fs, dir, limit)))
      if (size <= limit) expect(read._tag === "Right" && read.right.bytes.length).toBe(size)
      else expect(read).toMatchObject({ _tag: "Left", left: { _tag: "IndexTooLarge", size, limit } })
    }
  })
})
