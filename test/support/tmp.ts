/**
 * Shared helpers for tests on real files: temporary folders (removed after the test file), an agent directory for
 * `PI_CODING_AGENT_DIR`, real git repositories with linked worktrees, and topic files with chosen mtimes.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, utimesSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll } from "vitest"

const created: Array<string> = []

// Removed asynchronously: a synchronous removal of a large folder (an npm prefix) on a loaded machine can hold the
// worker's event loop past vitest's 60 s RPC timeout ("Timeout calling onTaskUpdate"), failing a green run.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 })))
})

/** A fresh canonical (realpath) temporary directory, removed when the test file ends. */
export const tempDir = (prefix = "pm-test-"): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  created.push(dir)
  return dir
}

/** A temporary agent directory and a home directory, never the real ones. */
export const tempAgent = (): { readonly agentDir: string; readonly home: string; readonly storageRoot: string } => {
  const base = tempDir("pm-agent-")
  const agentDir = join(base, "agent")
  const home = join(base, "home")
  mkdirSync(agentDir, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { agentDir, home, storageRoot: join(agentDir, "project-memory") }
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "pm test",
  GIT_AUTHOR_EMAIL: "pm@test.invalid",
  GIT_COMMITTER_NAME: "pm test",
  GIT_COMMITTER_EMAIL: "pm@test.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null"
}

export const git = (cwd: string, ...args: Array<string>): string =>
  execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** A git repository with one commit and a subdirectory `sub/deeper`. */
export const gitRepo = (parent = tempDir("pm-git-"), name = "repo"): string => {
  const root = join(parent, name)
  mkdirSync(join(root, "sub", "deeper"), { recursive: true })
  git(root, "init", "-q", "-b", "main")
  writeFileSync(join(root, "README.md"), "hello\n")
  git(root, "add", "README.md")
  git(root, "commit", "-q", "-m", "init")
  return root
}

/** A real linked worktree of `repo` (git worktree add), on a new branch. */
export const linkedWorktree = (repo: string, at = join(tempDir("pm-wt-"), "wt")): string => {
  git(repo, "worktree", "add", "-q", "-b", `wt-${Math.random().toString(36).slice(2, 8)}`, at)
  return realpathSync(at)
}

/** Writes a file (creating parents) and sets its mtime when given. */
export const writeFileAt = (path: string, content: string | Uint8Array, mtimeMs?: number): string => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, content)
  if (mtimeMs !== undefined) utimesSync(path, mtimeMs / 1000, mtimeMs / 1000)
  return path
}

export interface TopicSpec {
  readonly name?: string
  readonly description?: string
  readonly type?: string
  readonly body?: string
}

export const topicText = (t: TopicSpec): string =>
  [
    "---",
    ...(t.name === undefined ? [] : [`name: ${JSON.stringify(t.name)}`]),
    ...(t.description === undefined ? [] : [`description: ${JSON.stringify(t.description)}`]),
    ...(t.type === undefined ? [] : ["metadata:", `  type: ${t.type}`]),
    "---",
    t.body ?? "Body text.",
    ""
  ].join("\n")

/** Writes `count` valid topics `topic-nNNNN.md`, the higher index the newer (no `-<digits>.md`: that is a lint problem). */
export const writeTopics = (
  memoryDir: string,
  count: number,
  options: { readonly baseMs?: number; readonly stepMs?: number; readonly prefix?: string } = {}
): ReadonlyArray<{ readonly filename: string; readonly mtimeMs: number }> => {
  const base = options.baseMs ?? Date.now() - 10 * 86_400_000
  const step = options.stepMs ?? 60_000
  const prefix = options.prefix ?? "topic"
  const out: Array<{ filename: string; mtimeMs: number }> = []
  for (let i = 0; i < count; i++) {
    const filename = `${prefix}-n${String(i).padStart(4, "0")}.md`
    const mtimeMs = base + i * step
    writeFileAt(
      join(memoryDir, filename),
      topicText({ name: `Topic ${i}`, description: `What topic ${i} is about`, type: "project" }),
      mtimeMs
    )
    out.push({ filename, mtimeMs })
  }
  return out
}

export const isRoot = (): boolean => process.getuid?.() === 0
