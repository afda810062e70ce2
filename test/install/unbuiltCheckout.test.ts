/**
 * A checkout loaded by `pi -e <checkout>` before it was built (no dist/): Pi skips the missing first entry of the
 * manifest, and the second, unbuilt.js, says in one line on stderr (print mode) what to do. Once dist/extension.ts
 * exists, that entry says nothing. The real Pi of the dev dependencies, with pi-ai's fake provider.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { repoRoot } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

const PI = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js")

/** The files of a fresh clone that Pi reads: the manifest and the committed entry; no dist/, no node_modules. */
const unbuiltClone = (): string => {
  const clone = tempDir("pm-unbuilt-")
  for (const f of ["package.json", "unbuilt.js"]) copyFileSync(join(repoRoot, f), join(clone, f))
  return clone
}

const piPrint = async (clone: string) => {
  const agent = tempAgent()
  const faux = join(tempDir("pm-faux-"), "faux-provider.ts")
  copyFileSync(join(repoRoot, "test", "fixtures", "providers", "faux.mjs"), faux)
  return run(process.execPath, [PI, "--no-session", "-e", faux, "-e", clone, "--model", "faux/faux-1", "-p", "hello"], {
    cwd: gitRepo(),
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: agent.home,
      PI_CODING_AGENT_DIR: agent.agentDir,
      PM_FAUX_SCRIPT: JSON.stringify([{ text: "ok" }])
    }
  })
}

describe("pi -e of a checkout that was never built", () => {
  it("runs, and says in one line on stderr that the checkout needs npm install", async () => {
    const clone = unbuiltClone()
    const r = await piPrint(clone)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe("ok")
    const lines = r.stderr.split("\n").filter((l) => l.includes("pi-project-memory"))
    expect(lines).toEqual([
      `pi-project-memory is not built, so project memory is off: run npm install in ${clone} (it builds dist/), then start pi again.`
    ])
  })

  it("says nothing once dist/extension.ts exists", async () => {
    const clone = unbuiltClone()
    mkdirSync(join(clone, "dist"))
    writeFileSync(join(clone, "dist", "extension.ts"), "export default function built(): void {}\n")
    const r = await piPrint(clone)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain("pi-project-memory")
  })
})
