/**
 * `/memory` in Pi's interactive mode, in a real terminal (tmux): a real `pi` with the built extension and the strict
 * fake provider as its model. A person types `/memory list` and presses Enter once: the list is shown. Typed on
 * after that, `/memory show` and one Enter run as well; had the first Enter only accepted a completion offering what
 * was already typed, the second line would join the first ("list/memory show") and be refused.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot, runPm } from "../support/pm.ts"
import { type StrictProvider, startStrictProvider } from "../support/strictProvider.ts"
import { gitRepo, tempDir } from "../support/tmp.ts"
import { startTerminal, type Terminal } from "../support/tmux.ts"
import { topic } from "./harness.ts"

beforeAll(() => ensureBuilt())

const PI = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")

let strict: StrictProvider | undefined
let term: Terminal | undefined
afterEach(async () => {
  await term?.close()
  await strict?.close()
  term = strict = undefined
})

const lines = (screen: string) => screen.split("\n").map((l) => l.trim())

describe("/memory in Pi's interactive mode", () => {
  it("one Enter runs a complete subcommand: /memory list shows the list, and /memory show typed after it runs too", async () => {
    const agentDir = tempDir("pm-tui-agent-")
    const repo = gitRepo()
    strict = await startStrictProvider()
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(strict.modelsJson(), null, 2))
    const memoryDir: string = JSON.parse((await runPm(["project", "--json", "--cwd", repo], { agentDir, home: agentDir })).stdout).memoryDir
    mkdirSync(memoryDir, { recursive: true })
    writeFileSync(join(memoryDir, "release.md"), topic("Release process", "How releases are tagged and published"))
    writeFileSync(join(memoryDir, "MEMORY.md"), "- [Release process](release.md) - tagging and publishing\n")

    term = await startTerminal([process.execPath, PI, "-e", join(repoRoot, "dist", "extension.ts"), "--model", "strict/strict-1"], {
      cwd: repo,
      env: { PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_OFFLINE: "1", NO_COLOR: "1" }
    })
    // Pi lists its extensions once their commands are in the editor's completion.
    await term.waitFor((s) => lines(s).includes("[Extensions]"))
    // The subcommands' popup shows once the extension has loaded and answers completions.
    await term.type("/memory l")
    await term.waitFor((s) => s.includes("Topics with type, age, description and index link"))
    // Each key is read on its own; once the last one is drawn, its completion has been answered.
    await term.type("ist")
    await term.waitFor((s) => lines(s).includes("/memory list"))
    await term.key("Enter")
    // A warning is added below the list (a second information line would replace it).
    await term.type("/memory show")
    await term.waitFor((s) => lines(s).some((l) => l.endsWith("/memory show")))
    await term.key("Enter")
    const screen = await term.waitFor((s) => s.includes("Usage: /memory show NAME") || s.includes("Unknown /memory subcommand"))
    expect(screen).not.toContain("Unknown /memory subcommand")
    expect(screen).toMatch(/^ *release\.md +\[project, today\] +How releases are tagged and published$/m)
    // Nothing typed here asked the model anything.
    expect(strict.requests).toHaveLength(0)
  })
})
