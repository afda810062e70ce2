/**
 * A read-only store on a real mount (a tmpfs remounted read-only; chmod does not stop root, so it is not used):
 * reading commands work and write nothing, and a write says the system's reason. Needs root; skipped otherwise.
 */
import { existsSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { canMount, project, tmpfs } from "./support.ts"

beforeAll(() => ensureBuilt())

const mountable = canMount()
const READERS = [["scan"], ["lint"], ["log"], ["status"], ["doctor"], ["list"], ["show", "alpha"], ["search", "fact"]] as const

describe.skipIf(!mountable)("a read-only store", () => {
  it("on a read-only mount: every reading command works and writes nothing; forget fails saying why", async () => {
    const fs = tmpfs(1024)
    try {
      const p = await project(join(fs.path, "agent"), ["alpha", "beta"])
      // One forget and undo first, so the journal and the locks directory exist as they do in a used store.
      expect((await runPm(["forget", "beta", "--cwd", p.repo], p)).code).toBe(0)
      expect((await runPm(["undo", "--cwd", p.repo], p)).code).toBe(0)
      fs.remountReadOnly()
      for (const args of READERS) {
        const r = await runPm([...args, "--cwd", p.repo], p)
        expect(r.code === 0 || (args[0] === "doctor" && r.code === 1), `${args.join(" ")}: ${r.stderr}`).toBe(true)
        expect(r.stderr, args.join(" ")).not.toMatch(/Unknown|cannot write/)
      }
      const f = await runPm(["forget", "alpha", "--cwd", p.repo], p)
      expect(f.code).toBe(2)
      expect(f.stderr).toContain("the file system is read-only (EROFS)")
      expect(existsSync(join(p.memoryDir, "alpha.md"))).toBe(true)
    } finally {
      fs.release()
    }
  })

  it("in a fresh project on a read-only mount: scan, lint, log, status and doctor read it as empty", async () => {
    const fs = tmpfs(256)
    try {
      const agentDir = join(fs.path, "agent")
      const first = await project(agentDir, [])
      rmSync(join(agentDir, "project-memory"), { recursive: true, force: true })
      fs.remountReadOnly()
      for (const args of [["scan"], ["lint"], ["log"], ["status"], ["doctor"]]) {
        const r = await runPm([...args, "--cwd", first.repo], first)
        expect(r.code === 0 || (args[0] === "doctor" && r.code === 1), `${args.join(" ")}: ${r.stderr}`).toBe(true)
        expect(r.stderr).not.toContain(".project-root")
      }
      expect(readdirSync(agentDir)).toEqual([])
    } finally {
      fs.release()
    }
  })
})
