/**
 * The README's "From nothing to memory in Pi" block, run as written in this (built) checkout, from a shell whose
 * only Node is the machine's own (older than 22.19 here): afterwards `node` is a Node >= 22.19, `pi` and `pm` are
 * commands on PATH that run, and Pi's settings list this checkout as a package.
 *
 * Two things differ from a person's shell, both so that the test leaves no trace outside its temp folder:
 * `npm_config_prefix` sends the global installs to a temporary prefix (a person's go to their Node's prefix), and
 * `npm_config_ignore_scripts` keeps the install scripts of Pi's dependencies from running (this package has none:
 * its dist/ is committed).
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { ensureBuilt, repoRoot } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

/** The first `sh` block after the README's "From nothing to memory in Pi" heading. */
const firstSteps = (): string => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## From nothing to memory in Pi"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  if (block === undefined) throw new Error("the README has no first-steps block")
  return block
}

const isOld = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

describe("the README's first steps", () => {
  it("put a Node >= 22.19, pi and pm on PATH, and install this checkout into Pi", async () => {
    ensureBuilt()
    const block = firstSteps()
    expect(block).toContain("npm install -g @earendil-works/pi-coding-agent")
    const agent = tempAgent()
    const prefix = tempDir("pm-global-")
    const project = gitRepo()
    const systemNode = existsSync("/usr/bin/node") ? execFileSync("/usr/bin/node", ["--version"], { encoding: "utf8" }).trim() : ""
    const script = [
      "set -e",
      block,
      "node --version",
      "pi --version",
      `pm project --cwd ${project} --json`
    ].join("\n")
    const r = await run("sh", ["-c", script], {
      cwd: repoRoot,
      timeoutMs: 600_000,
      env: {
        PATH: `${join(prefix, "bin")}:/usr/bin:/bin`,
        HOME: agent.home,
        PI_CODING_AGENT_DIR: agent.agentDir,
        // The Node 22 and npm's cache that `npm install` of this checkout already fetched.
        PM_NODE_CACHE: process.env["PM_NODE_CACHE"] ?? join(homedir(), ".cache", "pi-project-memory", "node22"),
        npm_config_cache: process.env["npm_config_cache"] ?? join(homedir(), ".npm"),
        npm_config_prefix: prefix,
        npm_config_ignore_scripts: "true",
        npm_config_prefer_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false"
      }
    })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const lines = r.stdout.trim().split("\n")
    const nodeVersion = lines.find((l) => /^v\d+\.\d+\.\d+$/.test(l)) ?? ""
    expect(isOld(nodeVersion), `node on PATH: ${nodeVersion}`).toBe(false)
    if (isOld(systemNode)) expect(nodeVersion).not.toBe(systemNode)
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+$/m)
    expect(r.stdout).toContain(`"projectRoot": "${project}"`)
    expect(r.stderr).not.toMatch(/SyntaxError|command not found/)
    // `pm` on PATH is this checkout's, not the registry's unrelated package of that name.
    expect(execFileSync("readlink", ["-f", join(prefix, "bin", "pm")], { encoding: "utf8" }).trim()).toBe(join(repoRoot, "dist", "pm.js"))
    const settings = JSON.parse(readFileSync(join(agent.agentDir, "settings.json"), "utf8")) as { packages?: Array<unknown> }
    // Pi may store the path relative to its agent directory (a checkout near it) or absolute.
    const listed = (settings.packages ?? []).map((p) => (typeof p === "string" ? p : (p as { source?: string }).source ?? ""))
    expect(listed.map((p) => resolve(agent.agentDir, p))).toContain(resolve(repoRoot))
  })
})
