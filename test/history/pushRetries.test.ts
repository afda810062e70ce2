/**
 * A push the remote refuses because it moved is retried SYNC_PUSH_RETRIES times exactly, each after a new pull: a
 * remote that refuses that many times and then accepts is synced; one refusal more fails the sync with a reason,
 * local memory stays as it was (the change and its commit kept), and the next sync carries it. The real pm and git,
 * with a stand-in `git` on PATH that refuses the first pushes (fakeGit.ts).
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { SYNC_PUSH_RETRIES } from "../../src/limits.ts"
import { ensureBuilt } from "../support/pm.ts"
import { gitRefusingPushes } from "./fakeGit.ts"
import { bareRemote, machine } from "./machines.ts"

beforeAll(() => ensureBuilt())

const TOPIC = "---\nname: deploy\ndescription: where the deploy script lives\n---\nThe deploy script lives in scripts/deploy.sh\n"

/** A machine with sync on and a topic written since its last sync; `pm sync` with a git refusing `times` pushes. */
const syncRefused = async (times: number) => {
  const remote = bareRemote()
  const a = machine("alpha")
  const init = await a.pm(["sync", "init", remote, "--name", "shop"])
  expect(init.code, init.stderr).toBe(0)
  writeFileSync(join(a.memoryDir(), "deploy.md"), TOPIC)
  const fake = gitRefusingPushes(times)
  const r = await a.pm(["sync"], { PATH: `${fake.dir}:${process.env["PATH"]}` })
  const onRemote = () => {
    try {
      return execFileSync("git", [`--git-dir=${remote}`, "ls-tree", "--name-only", "pm/shop"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    } catch {
      return ""
    }
  }
  return { a, r, pushes: fake.pushes(), onRemote }
}

describe("the retries of a refused push", () => {
  it(`a remote that refuses ${SYNC_PUSH_RETRIES} times and then accepts is synced`, async () => {
    const { r, pushes, onRemote } = await syncRefused(SYNC_PUSH_RETRIES)
    expect(r.code, r.stderr).toBe(0)
    expect(pushes).toBe(SYNC_PUSH_RETRIES + 1)
    expect(onRemote()).toContain("deploy.md")
  })

  it("one refusal more fails the sync with a reason, keeps local memory, and the next sync carries it", async () => {
    const { a, r, pushes, onRemote } = await syncRefused(SYNC_PUSH_RETRIES + 1)
    expect(r.code).toBe(1)
    expect(pushes).toBe(SYNC_PUSH_RETRIES + 1)
    expect(r.stderr).toContain(`the remote kept moving: ${SYNC_PUSH_RETRIES + 1} pushes were refused`)
    expect(r.stderr).toContain("Memory on this machine is unchanged")
    expect(onRemote()).not.toContain("deploy.md")
    expect(a.read("deploy.md")).toBe(TOPIC)
    expect(execFileSync("git", [`--git-dir=${a.gitDir()}`, "show", "HEAD:deploy.md"], { encoding: "utf8" })).toBe(TOPIC)
    const again = await a.pm(["sync"])
    expect(again.code, again.stderr).toBe(0)
    expect(onRemote()).toContain("deploy.md")
    expect(a.read("deploy.md")).toBe(TOPIC)
  })
})
