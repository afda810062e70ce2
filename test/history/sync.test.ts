/**
 * Sync between two machines (two agent folders, two checkouts, one bare remote on disk), with the real pm and git:
 * what one remembers the other sees after a sync; changes on both, the same topic included, lose nothing and the
 * topic changed on both is listed as waiting for the dream; a remote that cannot be reached or refuses the push
 * leaves local memory working; a push carrying a credential is refused.
 */
import { execFileSync } from "node:child_process"
import { appendFileSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "../support/pm.ts"
import { bareRemote, gitRunningFirst, machine, offline, ok, pair } from "./machines.ts"

beforeAll(() => ensureBuilt())

describe("pm sync", () => {
  it("a fact remembered on A is in B's memory after both sync", async () => {
    const { a, b } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    expect(b.files()).toContain("the-deploy-script-lives-in-scripts.md")
    expect(b.read("MEMORY.md")).toContain("(the-deploy-script-lives-in-scripts.md)")
    const listed = await ok(b, ["search", "deploy"])
    expect(listed.stdout).toContain("the-deploy-script-lives-in-scripts.md")
  })

  it("a topic arrives byte for byte, bytes that are not UTF-8 included", async () => {
    const { a, b } = await pair()
    const bytes = Buffer.concat([Buffer.from("---\nname: odd\ndescription: odd bytes\n---\nLatin-1 caf"), Buffer.from([0xe9, 0xff, 0x0a])])
    writeFileSync(join(a.memoryDir(), "odd-bytes.md"), bytes)
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    expect(readFileSync(join(b.memoryDir(), "odd-bytes.md")).equals(bytes)).toBe(true)
  })

  it("matches the project by its origin remote on every machine, or asks for a name when there is none", async () => {
    const remote = bareRemote()
    const a = machine("alpha")
    const b = machine("beta")
    const none = await a.pm(["sync", "init", remote])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/no origin remote .*--name NAME/)
    execFileSync("git", ["-C", a.project, "remote", "add", "origin", "git@github.com:me/shop.git"])
    execFileSync("git", ["-C", b.project, "remote", "add", "origin", "https://github.com/me/shop"])
    await ok(a, ["sync", "init", remote])
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["sync"])
    await ok(b, ["sync", "init", remote])
    expect(b.files()).toContain("the-deploy-script-lives-in-scripts.md")
    const heads = execFileSync("git", [`--git-dir=${remote}`, "for-each-ref", "--format=%(refname)"], { encoding: "utf8" })
    expect(heads.trim()).toBe("refs/heads/pm/github.com/me/shop")
  })

  it("the same project key is one branch: another name is another project", async () => {
    const { remote, a } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["sync"])
    const c = machine("gamma")
    await ok(c, ["sync", "init", remote, "--name", "other"])
    expect(c.files()).toEqual([])
    const heads = execFileSync("git", [`--git-dir=${remote}`, "for-each-ref", "--format=%(refname)"], { encoding: "utf8" })
    expect(heads).toContain("refs/heads/pm/shop")
  })

  it("changes on both machines, one topic on both, lose nothing; the topic waits for the dream", async () => {
    const { a, b } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    await ok(a, ["remember", "Use pnpm, never npm"])
    await ok(b, ["remember", "Tests run with vitest"])
    appendFileSync(join(a.memoryDir(), "the-deploy-script-lives-in-scripts.md"), "It needs the VPN on (alpha).\n")
    appendFileSync(join(b.memoryDir(), "the-deploy-script-lives-in-scripts.md"), "It runs from the release branch only (beta).\n")
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    for (const m of [a, b]) {
      expect(m.files()).toEqual([
        "MEMORY.md",
        "tests-run-with-vitest.md",
        "the-deploy-script-lives-in-scripts.conflict-alpha.md",
        "the-deploy-script-lives-in-scripts.md",
        "use-pnpm-never-npm.md"
      ])
      const both = m.read("the-deploy-script-lives-in-scripts.md") + m.read("the-deploy-script-lives-in-scripts.conflict-alpha.md")
      expect(both).toContain("(alpha)")
      expect(both).toContain("(beta)")
      const index = m.read("MEMORY.md")
      for (const f of ["tests-run-with-vitest.md", "use-pnpm-never-npm.md", "the-deploy-script-lives-in-scripts.md"]) expect(index).toContain(`(${f})`)
      expect(index.split("\n").filter((l) => l.includes("(use-pnpm-never-npm.md)"))).toHaveLength(1)
      const status = await ok(m, ["sync", "status"])
      expect(status.stdout).toContain("Awaiting a merge by the dream: the-deploy-script-lives-in-scripts.conflict-alpha.md")
      const whole = await ok(m, ["status"])
      // A label longer than status's column keeps a space before its value.
      expect(whole.stdout).toMatch(/^Awaiting a merge by the dream: the-deploy-script-lives-in-scripts\.conflict-alpha\.md$/m)
      expect(whole.stdout).toMatch(/^Sync pending: \d+ commits? not yet pushed$/m)
    }
    expect(a.read("MEMORY.md")).toBe(b.read("MEMORY.md"))
  })

  it("a forget on one machine is a forget on the other; a line removed on one side stays removed", async () => {
    const { a, b } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["remember", "Use pnpm, never npm"])
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    await ok(b, ["forget", "use-pnpm-never-npm.md"])
    await ok(a, ["remember", "Tests run with vitest"])
    await ok(b, ["sync"])
    await ok(a, ["sync"])
    expect(a.files()).not.toContain("use-pnpm-never-npm.md")
    expect(a.read("MEMORY.md")).not.toContain("use-pnpm-never-npm.md")
    expect(a.read("MEMORY.md")).toContain("(tests-run-with-vitest.md)")
  })

  it("a push refused because the remote moved meanwhile is retried after a new pull, and both facts arrive", async () => {
    const { remote, a, b } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    await ok(a, ["sync"])
    await ok(b, ["sync"])
    const before = execFileSync("git", [`--git-dir=${remote}`, "rev-parse", "pm/shop"], { encoding: "utf8" }).trim()
    await ok(a, ["remember", "Use pnpm, never npm"])
    await ok(a, ["sync"])
    // A's new commit is held aside; the branch goes back, and moves to it between B's fetch and B's push.
    execFileSync("git", [`--git-dir=${remote}`, "update-ref", "refs/heads/held", "pm/shop"])
    execFileSync("git", [`--git-dir=${remote}`, "update-ref", "refs/heads/pm/shop", before])
    // Offline, so that B's remember leaves its push to the sync below.
    await offline(remote, () => ok(b, ["remember", "Tests run with vitest"]))
    const moving = gitRunningFirst("push", `git --git-dir=${remote} update-ref refs/heads/pm/shop refs/heads/held`)
    const r = await b.pm(["sync"], { PATH: `${moving}:${process.env["PATH"]}` })
    expect(r.code, r.stderr).toBe(0)
    expect(b.files()).toContain("use-pnpm-never-npm.md")
    const pushed = execFileSync("git", [`--git-dir=${remote}`, "ls-tree", "--name-only", "pm/shop"], { encoding: "utf8" })
    expect(pushed).toContain("tests-run-with-vitest.md")
    expect(pushed).toContain("use-pnpm-never-npm.md")
  })

  it("an unreachable remote fails the sync with a reason and leaves local memory working; it syncs later", async () => {
    const a = machine("alpha")
    const gone = join(bareRemote(), "..", "nowhere.git")
    await ok(a, ["sync", "init", gone, "--name", "shop"]).catch(() => undefined)
    const r = await a.pm(["sync"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Sync did not finish: .*Memory on this machine is unchanged/)
    await ok(a, ["remember", "Offline fact kept locally"])
    expect(a.files()).toContain("offline-fact-kept-locally.md")
    expect(a.log()[0]).toMatch(/^remember:/)
    execFileSync("git", ["init", "-q", "--bare", gone])
    await ok(a, ["sync"])
    const pushed = execFileSync("git", [`--git-dir=${gone}`, "log", "--format=%s", "pm/shop"], { encoding: "utf8" })
    expect(pushed).toContain("remember:")
  })

  it("a remote that rejects the push (a pre-receive hook) fails the sync, says why, and leaves memory working", async () => {
    const { remote, a } = await pair()
    writeFileSync(join(remote, "hooks", "pre-receive"), "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n", { mode: 0o755 })
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    const r = await a.pm(["sync"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/the remote refused the push/)
    const status = await ok(a, ["sync", "status"])
    expect(status.stdout).toMatch(/Sync pending: [1-9]/)
    await ok(a, ["remember", "Use pnpm, never npm"])
    expect(a.files()).toContain("use-pnpm-never-npm.md")
  })

  it("refuses to push a commit whose memory holds a credential, naming the file", async () => {
    const { remote, a } = await pair()
    await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
    // Written by hand, past the writer's guard: the push must still not carry it.
    writeFileSync(join(a.memoryDir(), "keys.md"), `---\nname: keys\ndescription: keys\n---\nthe token is ${"ghp_"}${"k3Jx9QmZ2vLp8RtY4wNc7HbA1sDf6GhE0uIo"}\n`)
    const r = await a.pm(["sync"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/nothing was pushed: keys\.md holds what looks like/)
    const pushed = execFileSync("git", [`--git-dir=${remote}`, "ls-tree", "--name-only", "pm/shop"], { encoding: "utf8" })
    expect(pushed).toContain("the-deploy-script-lives-in-scripts.md")
    expect(pushed).not.toContain("keys.md")
  })
})
