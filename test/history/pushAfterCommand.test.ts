/**
 * `pm remember`, `pm forget`, `pm undo` and `pm review approve` push what they committed when sync is on for the
 * project, in the same `pm` run, with one line saying so: what is remembered on A is on B after B's sync alone.
 * Offline (the remote gone) the command still succeeds, keeps its change and says the push waits for the next sync.
 * With history on and sync off, they say nothing of it. The real pm and git, two agent folders, a bare remote.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { renameSync } from "node:fs"
import { dirname } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeHeldStore } from "../../layers/writes/heldStore.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { ensureBuilt } from "../support/pm.ts"
import { machine, ok, pair } from "./machines.ts"

beforeAll(() => ensureBuilt())

const FACT = "the-deploy-script-lives-in-scripts.md"

describe("a command that changed memory pushes it when sync is on", () => {
  it("remember, forget and undo on A each reach B with B's sync alone", async () => {
    const { a, b } = await pair()
    const remembered = await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    expect(remembered.stdout).toMatch(/^Synced with the remote: .*1 commit pushed\.$/m)
    await ok(b, ["sync"])
    expect(b.files()).toContain(FACT)
    const forgot = await ok(a, ["forget", FACT])
    expect(forgot.stdout).toMatch(/^Synced with the remote: .*pushed\.$/m)
    await ok(b, ["sync"])
    expect(b.files()).not.toContain(FACT)
    const undone = await ok(a, ["undo"])
    expect(undone.stdout).toMatch(/^Synced with the remote: .*pushed\.$/m)
    await ok(b, ["sync"])
    expect(b.files()).toContain(FACT)
  })

  it("pm review approve on A reaches B with B's sync alone", async () => {
    const { a, b } = await pair()
    const content = "---\nname: Bootstrap\ndescription: fetch the toolchain before building\nmetadata:\n  type: project\n---\nRun `make fetch-toolchain` before any build.\n"
    await Effect.runPromise(makeHeldStore(makeNodeFileSystem()).add(dirname(a.gitDir()), {
      v: 1,
      id: "0a1b2c3d",
      file: "bootstrap.md",
      content,
      source: "tool: read README.md",
      reason: "its words come from a tool result (read README.md), not from the user",
      at: "2026-01-01T00:00:00.000Z",
      task: "extract",
      session: "s1"
    }))
    const approved = await ok(a, ["review", "approve", "0a1b2c3d"])
    expect(approved.stdout).toMatch(/^Synced with the remote: .*pushed\.$/m)
    await ok(b, ["sync"])
    expect(b.read("bootstrap.md")).toBe(content)
  })

  it("offline, the command succeeds, keeps its change and says the push waits; the next sync carries it", async () => {
    const { remote, a, b } = await pair()
    renameSync(remote, `${remote}.away`)
    const r = await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    expect(r.stdout).toMatch(/^Not pushed yet: .*The change is kept on this machine; the push waits for the next sync\.$/m)
    expect(a.files()).toContain(FACT)
    expect(a.log()[0]).toMatch(/^remember:/)
    const json = await ok(a, ["forget", "--json", FACT])
    expect(JSON.parse(json.stdout).forgotten).toEqual([FACT])
    expect(json.stderr).toMatch(/^Not pushed yet: /m)
    await ok(a, ["undo"])
    renameSync(`${remote}.away`, remote)
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    expect(b.files()).toContain(FACT)
  })

  it("with history on and sync off, remember commits and says nothing of a push", async () => {
    const a = machine("alpha")
    await ok(a, ["on", "history", "--project"])
    const r = await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/Synced|Not pushed/)
    expect(a.log()[0]).toMatch(/^remember:/)
    expect(execFileSync("git", [`--git-dir=${a.gitDir()}`, "remote"], { encoding: "utf8" })).toBe("")
  })
})
