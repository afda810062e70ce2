/**
 * The README's test command, run as written in a clean clone, on a machine whose only Node is older than 22.19:
 * `npm test` (here narrowed to one small test file, so the suite does not run itself) must fetch a Node 22 from the
 * npm registry, build, type-check and pass (test/cli/readmeClone.ts says what the clone shares).
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fresh, readmeCommand, withOldNodeClone } from "./readmeClone.ts"

describe("the README's test command on a machine with an old Node", () => {
  it("runs the tests under a Node 22 fetched from the npm registry, building first", async () => {
    await withOldNodeClone(async ({ clone, sh }) => {
      // From nothing, the clone needs its dependencies first; linked, it already has them.
      if (fresh) {
        const installed = await sh("npm install --ignore-scripts --no-audit --no-fund")
        expect(installed.code, installed.stderr).toBe(0)
      }
      // The build runs first: it rewrites the committed dist/ (a file of its own that the build removes shows it).
      writeFileSync(join(clone, "dist", "pm-chunk-stale.js"), "")
      const tested = await sh(`${readmeCommand("npm test")} -- test/readpath/projectKey.test.ts`)
      expect(tested.code, tested.stdout + tested.stderr).toBe(0)
      expect(tested.stderr).toMatch(/older than the 22\.19 this package needs: installing Node 22 from the npm registry/)
      expect(tested.stderr).toMatch(/running under Node v22\./)
      expect(tested.stdout).toMatch(/Test Files\s+1 passed/)
      expect(existsSync(join(clone, "dist", "pm.js"))).toBe(true)
      expect(existsSync(join(clone, "dist", "pm-chunk-stale.js"))).toBe(false)
    })
  }, fresh ? 900_000 : 600_000)
})
