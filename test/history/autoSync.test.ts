/**
 * Sync by itself, in the extension's own graph (the one Pi runs, host faked): a session's start pulls what another
 * machine pushed, and a change made in the session (here a remember through the session's MemoryBrowse) is
 * committed and pushed without any command. The other machine is the real pm.
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { beforeAll, describe, expect, it } from "vitest"
import { syncsSettled } from "../../layers/history/autoSync.ts"
import { MemoryBrowse } from "../../layers/memory/MemoryBrowse.ts"
import { MemorySession } from "../../layers/session/MemorySession.ts"
import { extensionGraph, hostLayer } from "../support/extensionGraph.ts"
import { ensureBuilt } from "../support/pm.ts"
import { tempAgent } from "../support/tmp.ts"
import { bareRemote, machine } from "./machines.ts"

beforeAll(() => ensureBuilt())

describe("sync by itself in a Pi session", () => {
  it("pulls at the session's start and pushes after a change made in the session", async () => {
    const remote = bareRemote()
    const a = machine("alpha")
    const b = machine("beta")
    expect((await b.pm(["sync", "init", remote, "--name", "shop"])).code).toBe(0)
    expect((await a.pm(["sync", "init", remote, "--name", "shop"])).code).toBe(0)
    expect((await a.pm(["remember", "The deploy script lives in scripts/deploy.sh"])).code).toBe(0)
    expect((await a.pm(["sync"])).code).toBe(0)
    expect(b.files()).toEqual([])

    // B's session, in B's agent folder (the machine helper's), in-process.
    const agentDir = b.memoryDir().split("/project-memory/")[0]!
    const program = Effect.gen(function*() {
      const session = yield* MemorySession
      yield* session.start
      yield* Effect.promise(syncsSettled)
      expect(b.files()).toContain("the-deploy-script-lives-in-scripts.md")
      const location = (yield* session.status).location!
      yield* (yield* MemoryBrowse).remember({ memoryDir: location.memoryDir, rootDir: location.memoryRootDir, text: "Tests run with vitest", session: "s1" })
      yield* Effect.promise(syncsSettled)
    })
    process.env["PM_MACHINE_NAME"] = "beta"
    try {
      await Effect.runPromise(Effect.scoped(Effect.provide(program, extensionGraph({ host: hostLayer(b.project), env: { agentDir, home: tempAgent().home } }))))
    } finally {
      delete process.env["PM_MACHINE_NAME"]
    }
    const pushed = execFileSync("git", [`--git-dir=${remote}`, "ls-tree", "--name-only", "pm/shop"], { encoding: "utf8" })
    expect(pushed).toContain("tests-run-with-vitest.md")
    expect(pushed).toContain("the-deploy-script-lives-in-scripts.md")
  })
})
