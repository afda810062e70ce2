/**
 * A fake home and project for the sandbox tests: a real git repository with a gitignored `.env`, `~/.aws/credentials`,
 * `~/.ssh/id_rsa`, Pi's `auth.json`, a memory folder, an `OPENAI_API_KEY` and a `GITHUB_TOKEN` in the environment,
 * and a loopback listener that counts every connection. `snapshot` records every file of the home and the project
 * (type, mode, size, mtime, content hash, link target) to compare before and after.
 */
import { createHash, randomBytes } from "node:crypto"
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { githubToken, privateKeyBlock } from "../trust/fakeSecrets.ts"
import { git, tempDir } from "../support/tmp.ts"

export interface SandboxFixture {
  readonly home: string
  readonly agentDir: string
  readonly project: string
  readonly memoryDir: string
  /** Every credential value planted; none may appear in any output. */
  readonly secrets: ReadonlyArray<string>
  readonly port: number
  /** Connections the listener has accepted. */
  readonly connections: () => number
  readonly env: Record<string, string>
  readonly close: () => Promise<void>
}

const alnum = (n: number) => randomBytes(n).toString("base64").replace(/[^A-Za-z0-9]/g, "").slice(0, n).padEnd(n, "x")

export const makeFixture = async (): Promise<SandboxFixture> => {
  const base = tempDir("pm-sandbox-")
  const home = join(base, "home")
  const agentDir = join(home, ".pi", "agent")
  const project = join(home, "work", "project")
  const memoryDir = join(agentDir, "project-memory", "projects", "p", "memory")
  for (const d of [join(home, ".aws"), join(home, ".ssh"), agentDir, join(project, "src"), join(project, "config"), memoryDir]) {
    mkdirSync(d, { recursive: true })
  }
  const awsSecret = alnum(40)
  const key = privateKeyBlock()
  const envValue = githubToken()
  const prodValue = `sk_live_${alnum(32)}`
  const authToken = `sk-ant-api03-${alnum(80)}`
  const openai = `sk-proj-${alnum(48)}`
  const github = githubToken()
  writeFileSync(join(home, ".aws", "credentials"), `[default]\naws_access_key_id = AKIA${alnum(16).toUpperCase()}\naws_secret_access_key = ${awsSecret}\n`)
  writeFileSync(join(home, ".ssh", "id_rsa"), `${key}\n`)
  writeFileSync(join(agentDir, "auth.json"), `{"anthropic":{"type":"api_key","key":"${authToken}"}}\n`)
  writeFileSync(join(memoryDir, "MEMORY.md"), "- [A](a.md) - a\n")
  writeFileSync(join(memoryDir, "a.md"), "---\nname: A\ndescription: a\nmetadata:\n  type: project\n---\nalpha\n")
  writeFileSync(join(project, "README.md"), "hello KEY_NAMES are documented here\n")
  writeFileSync(join(project, "src", "main.ts"), "export const KEY = 'not a secret'\n")
  writeFileSync(join(project, ".gitignore"), ".env\nconfig/.env.production\n")
  git(project, "init", "-q", "-b", "main")
  git(project, "add", ".")
  git(project, "commit", "-q", "-m", "init")
  // Uncommitted work and untracked secrets, as a stash attack would find them.
  writeFileSync(join(project, "README.md"), "hello KEY_NAMES are documented here\nwork in progress\n")
  writeFileSync(join(project, ".env"), `GITHUB_TOKEN=${envValue}\n`)
  writeFileSync(join(project, "config", ".env.production"), `STRIPE_KEY=${prodValue}\n`)
  writeFileSync(join(project, "NOTES.md"), "untracked notes\n")

  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted++
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  const keyBody = key.split("\n")[1]!
  return {
    home,
    agentDir,
    project,
    memoryDir,
    secrets: [awsSecret, keyBody, envValue, prodValue, authToken, openai, github],
    port,
    connections: () => accepted,
    env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, OPENAI_API_KEY: openai, GITHUB_TOKEN: github },
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

/** Every entry under the roots: path -> what it is. */
export const snapshot = (roots: ReadonlyArray<string>): Map<string, string> => {
  const seen = new Map<string, string>()
  const walk = (p: string) => {
    const st = lstatSync(p)
    if (st.isSymbolicLink()) seen.set(p, `link ${readlinkSync(p)}`)
    else if (st.isDirectory()) {
      seen.set(p, `dir ${st.mode.toString(8)} ${st.mtimeMs}`)
      for (const name of readdirSync(p)) walk(join(p, name))
    } else {
      const hash = createHash("sha256").update(readFileSync(p)).digest("hex")
      seen.set(p, `file ${st.mode.toString(8)} ${st.size} ${st.mtimeMs} ${hash}`)
    }
  }
  for (const r of roots) walk(r)
  return seen
}

/** What changed between two snapshots, one line per path. */
export const changes = (before: Map<string, string>, after: Map<string, string>): Array<string> => {
  const out: Array<string> = []
  for (const [p, v] of after) if (before.get(p) !== v) out.push(`${before.has(p) ? "changed" : "created"} ${p}`)
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`)
  return out
}
