/**
 * A full disk during `pm forget` and `pm undo`: a tiny tmpfs holding the whole agent directory, filled so that 0 to
 * 16 pages are left. A failure says "no space"; once space is freed nothing is lost (the topic is back, byte for byte)
 * and nothing is blocked (no lock left, no wait). Needs root (mount); skipped otherwise.
 */
import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { canMount, project, tmpfs } from "./support.ts"

beforeAll(() => ensureBuilt())

const mountable = canMount()
const PAGE = 4096

/** Fills the file system at `dir` until ENOSPC, then gives back `pages` pages. Returns a function freeing it all. */
const fillLeaving = (dir: string, pages: number): (() => void) => {
  const path = join(dir, "filler")
  const fd = openSync(path, "w")
  const chunk = Buffer.alloc(PAGE, 1)
  let size = 0
  try {
    for (;;) {
      writeSync(fd, chunk)
      size += PAGE
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  }
  ftruncateSync(fd, Math.max(0, size - pages * PAGE))
  closeSync(fd)
  return () => rmSync(path, { force: true })
}

describe.skipIf(!mountable)("a full disk during forget and undo", () => {
  it("with 0 to 16 pages free: a failure says 'no space'; once freed, nothing is lost and nothing blocks", async () => {
    const fs = tmpfs(2048)
    try {
      const names = Array.from({ length: 17 }, (_, i) => `fact-${i}`)
      const p = await project(join(fs.path, "agent"), names)
      const original = Object.fromEntries(names.map((n) => [n, readFileSync(join(p.memoryDir, `${n}.md`))]))
      const failures: Array<string> = []
      for (let pages = 0; pages <= 16; pages++) {
        const name = names[pages]!
        const free = fillLeaving(fs.path, pages)
        const r = await runPm(["forget", name, "--wait", "5", "--cwd", p.repo], p)
        const u = r.code === 0 ? await runPm(["undo", "--wait", "5", "--cwd", p.repo], p) : undefined
        free()
        for (const out of [r, u]) {
          if (out === undefined || out.code === 0) continue
          failures.push(`${pages}: ${out.stderr.trim()}`)
          expect(out.stderr, `${pages} pages`).toMatch(/no space left on the device \(ENOSPC\)/)
          expect(out.stderr).not.toContain("waiting for")
        }
        // Space is back: nothing blocks, and the topic is as it was (restored by undo if it had gone).
        if (u === undefined || u.code !== 0) {
          // The forget went through but its undo failed, or the forget failed part way: undo what is journaled.
          const restore = await runPm(["undo", "--cwd", p.repo], p)
          expect(restore.stderr, `${pages} pages`).not.toContain("waiting for")
        }
        expect(readFileSync(join(p.memoryDir, `${name}.md`)), `${pages} pages`).toEqual(original[name])
        expect(readdirSync(p.locksDir).filter((f) => !f.endsWith(".tmp")), `${pages} pages`).toEqual([])
      }
      // Some page counts must have failed, or the test did not test a full disk.
      expect(failures.length).toBeGreaterThan(0)
      const index = readFileSync(join(p.memoryDir, "MEMORY.md"), "utf8")
      for (const n of names) expect(index).toContain(`(${n}.md)`)
      // Printed for the report: which page counts failed, and how.
      console.log(failures.join("\n"))
    } finally {
      fs.release()
    }
    // 17 rounds of two or three `pm` processes: half a minute on a quiet machine, over two at load average 17.
  })
})
