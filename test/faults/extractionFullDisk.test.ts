/**
 * A full disk during extraction (the real Pi host, the built extension, a scripted model, the whole agent directory
 * on a tiny tmpfs): the topic's write fails for lack of space, and the index edit that would link it is refused, so
 * MEMORY.md never links memory that was not saved; the run is recorded as failed, with the reason, where `pm status`
 * and `/memory status` show it. Needs root (mount); skipped otherwise.
 */
import { execFileSync } from "node:child_process"
import { closeSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { call, calls, type Harness, say, startHarness, taskTurn, topic } from "../background/harness.ts"
import { ensureBuilt } from "../support/pm.ts"
import { canMount, tmpfs } from "./support.ts"

beforeAll(() => ensureBuilt(), 120_000)
const PM = resolve(import.meta.dirname, "../../dist/pm.js")
const mountable = canMount()

let h: Harness | undefined
let mount: ReturnType<typeof tmpfs> | undefined
afterEach(async () => {
  // The harness removes its base folder, here the mount point itself, which cannot go while mounted.
  await h?.dispose().catch(() => undefined)
  h = undefined
  mount?.release()
  mount = undefined
})

const INDEX = "- [Old](old.md) - an older memory\n"

describe.skipIf(!mountable)("extraction on a full disk", () => {
  it("the topic write fails, its index line is refused, and the run is recorded as failed with the reason", async () => {
    mount = tmpfs(4096)
    h = await startHarness({ base: mount.path, memory: { "MEMORY.md": INDEX, "old.md": topic("Old", "an older memory") } })
    const dir = h.memoryDir
    // A topic larger than the space left (but within the 32 KiB a background write may put in one file): its write
    // fails; the small index edit alone would fit.
    const big = topic("Deploys", "deploys happen on Fridays only", "project", "x".repeat(30_000))
    let filler: string | undefined
    h.background = (r) => {
      const turn = taskTurn(r)
      if (turn === 0) {
        // Fill the disk now, leaving 4 pages (16 KiB): the session has started, the task is about to write.
        filler = join(mount!.path, "filler")
        const fd = openSync(filler, "w")
        let size = 0
        try {
          for (;;) size += writeSync(fd, Buffer.alloc(65_536, 1))
        } catch {
          // ENOSPC: full
        }
        ftruncateSync(fd, Math.max(0, size - 4 * 4096))
        closeSync(fd)
        return call("read", { path: join(dir, "MEMORY.md") })
      }
      if (turn === 1) {
        return calls(
          ["write", { path: join(dir, "deploys.md"), content: big }],
          ["edit", { path: join(dir, "MEMORY.md"), edits: [{ oldText: INDEX, newText: `${INDEX}- [Deploys](deploys.md) - Friday deploys\n` }] }]
        )
      }
      return say("Saved deploys.md.")
    }
    await h.prompt("please remember that deploys happen on Fridays")
    await h.prompt("/memory extract")
    if (filler !== undefined) rmSync(filler, { force: true })
    expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(INDEX)
    const results = h.ofKind("background").flatMap((r) => r.messages.filter((m: any) => m.role === "toolResult"))
    const texts = results.map((m: any) => (m.content ?? []).map((c: any) => c.text ?? "").join(""))
    expect(texts.some((t: string) => /no space left on the device \(ENOSPC\)/.test(t))).toBe(true)
    expect(texts.some((t: string) => t.includes("MEMORY.md was not changed: it would link deploys.md, which does not exist"))).toBe(true)
    const env = { ...process.env, PI_CODING_AGENT_DIR: h.agentDir }
    const pmJson = JSON.parse(execFileSync(process.execPath, [PM, "status", "--cwd", h.cwd, "--json"], { env, encoding: "utf8" }))
    // The /memory extract run found nothing new; the turn's run is the one that failed.
    const runs = JSON.parse(readFileSync(join(h.agentDir, "project-memory", "projects", h.cwd.replace(/[^a-zA-Z0-9]/g, "-"), "background-runs.json"), "utf8"))
    expect(runs.extract ?? pmJson.background.extract, JSON.stringify(runs)).toMatchObject({ outcome: "failed" })
    expect((runs.extract ?? pmJson.background.extract).detail).toMatch(/1 write failed, so memory was not saved: .*no space left on the device/)
  }, 60_000)
})
