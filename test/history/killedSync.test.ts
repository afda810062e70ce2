/**
 * A sync killed part way (pm itself, SIGKILL, at a chosen git call) leaves both machines consistent: the next sync
 * on each finishes the work, both end with the same memory, nothing is lost, and no task is left open.
 */
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "../support/pm.ts"
import { bareRemote, killingGit, type Machine, machine, offline, ok } from "./machines.ts"

beforeAll(() => ensureBuilt())

/** Runs pm with the killing git first on PATH; the run ends killed (runPm rejects on a signal). */
const killed = async (m: Machine, args: ReadonlyArray<string>, subcommand: string, nth = 1) => {
  const outcome = await m.pm(args, { PATH: `${killingGit(subcommand, nth)}:${process.env["PATH"]}` }).then(
    (r) => `exited ${r.code}: ${r.stderr}`,
    (e: { signal?: string }) => e.signal ?? "failed"
  )
  expect(outcome).toBe("SIGKILL")
}

const openMarkers = (m: Machine) => {
  const open = join(m.gitDir(), "..", "open")
  return existsSync(open) ? readdirSync(open) : []
}

const settle = async (a: Machine, b: Machine) => {
  await ok(a, ["sync"])
  await ok(b, ["sync"])
  await ok(a, ["sync"])
  expect(a.files()).toEqual(b.files())
  for (const f of a.files()) expect(a.read(f), f).toBe(b.read(f))
  expect(openMarkers(a)).toEqual([])
  expect(openMarkers(b)).toEqual([])
}

describe("a killed sync", () => {
  for (const [point, nth] of [["push", 1], ["fetch", 1], ["cat-file", 2], ["update-ref", 1]] as const) {
    it(`killed at git ${point} (call ${nth}): the next syncs finish, both sides the same, nothing lost`, async () => {
      const remote = bareRemote()
      const a = machine("alpha")
      const b = machine("beta")
      await ok(a, ["sync", "init", remote, "--name", "shop"])
      await ok(b, ["sync", "init", remote, "--name", "shop"])
      await ok(a, ["remember", "The deploy script lives in scripts/deploy.sh"])
      await ok(a, ["remember", "Use pnpm, never npm"])
      await ok(a, ["sync"])
      // Offline, so that B's remember leaves its push to the sync that is killed.
      await offline(remote, () => ok(b, ["remember", "Tests run with vitest"]))
      await killed(b, ["sync"], point, nth)
      // B's own memory works right after.
      await offline(remote, () => ok(b, ["remember", "Releases are cut on Fridays"]))
      await settle(a, b)
      for (const f of ["the-deploy-script-lives-in-scripts.md", "use-pnpm-never-npm.md", "tests-run-with-vitest.md", "releases-are-cut-on-fridays.md"]) {
        expect(b.files()).toContain(f)
        expect(b.read("MEMORY.md")).toContain(`(${f})`)
      }
    })
  }
})
