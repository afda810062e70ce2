/**
 * What the background model is shown holds no credential: secrets planted in a project file and in a commit's history
 * reach it only as markers, through `read`, `grep`, `bash git log -p` (inside the OS sandbox) and a codemode script,
 * with the notice that values were replaced. Real task tools (Pi's tool definitions), real git, real files.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { redactionNotice } from "../../src/safety/redact.ts"
import { sandboxGate, type SandboxGate } from "../support/sandbox.ts"
import { exec, setupTaskTools, text } from "../support/taskTools.ts"
import { git } from "../support/tmp.ts"
import { githubToken, privateKeyBlock } from "./fakeSecrets.ts"

let gate: SandboxGate
beforeAll(async () => {
  gate = await sandboxGate()
})

/** A project in git: a token in a file today, and a private key and another token only in an earlier commit. */
const plantedProject = async (extra: Parameters<typeof setupTaskTools>[0] = {}) => {
  const setup = await setupTaskTools(extra)
  const { cwd } = setup
  const current = githubToken()
  const historic = githubToken()
  const key = privateKeyBlock()
  git(cwd, "init", "-q", "-b", "main")
  mkdirSync(join(cwd, "ops"))
  writeFileSync(join(cwd, "ops", "deploy.sh"), `#!/bin/sh\n# push with the bot's token\ngit push https://x:${historic}@github.com/acme/app main\n`)
  writeFileSync(join(cwd, "ops", "id_deploy.txt"), `${key}\n`)
  git(cwd, "add", ".")
  git(cwd, "commit", "-q", "-m", "deploy script")
  writeFileSync(join(cwd, "ops", "deploy.sh"), "#!/bin/sh\n# the token comes from the CI now\ngit push origin main\n")
  git(cwd, "rm", "-q", "ops/id_deploy.txt")
  git(cwd, "add", ".")
  git(cwd, "commit", "-q", "-m", "token from CI")
  writeFileSync(join(cwd, "NOTES.md"), `Deploy notes — déploiement 🚀\nThe bot's token is ${current} (rotate it).\nAsk Dana for access.\n`)
  const planted = [current, historic, ...key.split("\n").filter((l) => !l.startsWith("-----"))]
  return { ...setup, current, historic, key, planted }
}

const leaked = (out: string, planted: ReadonlyArray<string>): Array<string> => planted.filter((p) => out.includes(p))

describe("background tool results are redacted", () => {
  it("read: the token in a project file becomes a marker; the rest of the file and the notice are there", async () => {
    const p = await plantedProject()
    const result = await exec(p.tools, "read", { path: join(p.cwd, "NOTES.md") })
    const out = text(result)
    expect(leaked(out, p.planted)).toEqual([])
    expect(out).toContain("Deploy notes — déploiement 🚀\nThe bot's token is [redacted: GitHub token] (rotate it).\nAsk Dana for access.\n")
    expect(out).toContain(redactionNotice(1))
    await p.tools.close("the test ended")
  })

  it("grep: a matching line carries the marker, not the token", async () => {
    const p = await plantedProject()
    const out = text(await exec(p.tools, "grep", { pattern: "bot's token", path: p.cwd }))
    expect(leaked(out, p.planted)).toEqual([])
    expect(out).toContain("NOTES.md:2: The bot's token is [redacted: GitHub token] (rotate it).")
    await p.tools.close("the test ended")
  })

  it("bash git log -p, inside the OS sandbox: the history's token and key reach the model only as markers", async (ctx) => {
    if (gate.skip) ctx.skip()
    // Refused rather than run without the sandbox: a pass here means the command ran inside it.
    const p = await plantedProject({ whenUnavailable: "refuse" })
    const result = await exec(p.tools, "bash", { command: "git log -p" })
    const out = text(result)
    expect(result.isError).not.toBe(true)
    expect(out).toContain("deploy script")
    expect(leaked(out, p.planted)).toEqual([])
    expect(out).toContain("[redacted: OpenSSH private key]")
    expect(out).toContain("-git push https://x:[redacted: GitHub token]@github.com/acme/app main")
    expect(out).toMatch(/\[\d+ credential-looking values were replaced/)
    await p.tools.close("the test ended")
  })

  it("an error result is redacted too: a failed command's output", async (ctx) => {
    if (gate.skip) ctx.skip()
    const p = await plantedProject({ whenUnavailable: "refuse" })
    // cat prints NOTES.md, then fails on the missing file: Pi's bash turns the output into an error.
    const result = await exec(p.tools, "bash", { command: "cat NOTES.md missing.txt" })
    const out = text(result)
    expect(result.isError).toBe(true)
    expect(out).toContain("missing.txt")
    expect(leaked(out, p.planted)).toEqual([])
    expect(out).toContain("The bot's token is [redacted: GitHub token] (rotate it).")
    await p.tools.close("the test ended")
  })

  it("codemode: what a script returns is redacted, even a value it put back together from a disguised one", async () => {
    const p = await plantedProject({ codemode: { mode: "only", inlineBudget: undefined } })
    // The file holds the token reversed, which the detector does not recognise; the script turns it round.
    writeFileSync(join(p.cwd, "reversed.txt"), `${[...p.current].reverse().join("")}\n`)
    const script = [
      `const notes = await tools.read({ path: ${JSON.stringify(join(p.cwd, "NOTES.md"))} })`,
      `const reversed = await tools.read({ path: ${JSON.stringify(join(p.cwd, "reversed.txt"))} })`,
      `return String(notes) + "\\n" + [...String(reversed).trim()].reverse().join("")`
    ].join("\n")
    const out = text(await exec(p.tools, "codemode", { code: script }))
    expect(leaked(out, p.planted)).toEqual([])
    expect(out).toContain("[redacted: GitHub token]")
    await p.tools.close("the test ended")
  })
})
