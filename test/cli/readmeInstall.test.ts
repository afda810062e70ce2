/**
 * The README's first command, taken from its first code block and run as written in a clean clone on a machine whose
 * only Node is older than 22.19: `npm install && npx pm scan --memory-dir examples/memory` must fetch a Node 22 from
 * the npm registry, say so in one line, build, and scan (test/cli/readmeClone.ts says what the clone shares).
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fresh, readmeCommand, readmeCommands, withOldNodeClone } from "./readmeClone.ts"

describe("the README's install command on a machine with an old Node", () => {
  it("the README's first code block holds the install and the test command", () => {
    const commands = readmeCommands()
    expect(commands).toContain("npm install && npx pm scan --memory-dir examples/memory")
    expect(commands).toContain("npm test")
  })

  it("install and run pm scan under a Node 22 fetched from the npm registry", async () => {
    await withOldNodeClone(async ({ clone, sh }) => {
      const installed = await sh(readmeCommand("npm install"))
      expect(installed.code, installed.stderr).toBe(0)
      expect(installed.stdout).toContain("Topics: 4")
      expect(installed.stderr).toMatch(/older than the 22\.19 this package needs: installing Node 22 from the npm registry/)
      expect(installed.stderr).toMatch(/pm: Node v\d+\.\d+\.\d+ is older than 22\.19; running under /)
      expect(installed.stderr).not.toMatch(/globSync|ERR_|SyntaxError/)
      expect(existsSync(join(clone, "dist", "pm.js"))).toBe(true)
    })
  }, fresh ? 900_000 : 600_000)
})
