/**
 * Two machines for the history and sync tests: each an agent folder of its own (PI_CODING_AGENT_DIR, HOME), a
 * project checkout and a machine name, running the real `pm` (dist/pm.js) with the real git; one bare remote on disk.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type PmResult, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"
import { expect } from "vitest"

export interface Machine {
  readonly name: string
  readonly project: string
  readonly pm: (args: ReadonlyArray<string>, env?: Readonly<Record<string, string | undefined>>) => Promise<PmResult>
  /** The memory folder (after the first command that located the project). */
  readonly memoryDir: () => string
  /** The history's git folder. */
  readonly gitDir: () => string
  /** `git log` of the history, one line per commit: `<subject>` (and the body with `full`). */
  readonly log: (format?: string) => ReadonlyArray<string>
  readonly files: () => ReadonlyArray<string>
  readonly read: (file: string) => string
}

export const machine = (name: string): Machine => {
  const { agentDir, home, storageRoot } = tempAgent()
  const project = gitRepo(tempDir(`pm-${name}-`), "project")
  const only = (dir: string) => {
    const entries = existsSync(dir) ? readdirSync(dir) : []
    if (entries.length !== 1) throw new Error(`expected one entry in ${dir}, found ${entries.length}`)
    return join(dir, entries[0]!)
  }
  const memoryDir = () => join(only(join(storageRoot, "projects")), "memory")
  const gitDir = () => join(only(join(storageRoot, "memory-roots")), "history.git")
  return {
    name,
    project,
    pm: (args, env = {}) => runPm(args, { cwd: project, agentDir, home, env: { PM_MACHINE_NAME: name, ...env } }),
    memoryDir,
    gitDir,
    log: (format = "%s") =>
      existsSync(gitDir())
        ? execFileSync("git", [`--git-dir=${gitDir()}`, "log", "-z", `--format=${format}`], { encoding: "utf8" }).split("\0").filter((l) => l !== "")
        : [],
    files: () => readdirSync(memoryDir()).filter((f) => !f.startsWith(".")).sort(),
    read: (file) => readFileSync(join(memoryDir(), file), "utf8")
  }
}

/** A bare repository on disk standing for the shared remote. */
/** `pm ...args` on `m`, which must succeed (exit 0; its output named when it does not). */
export const ok = async (m: Machine, args: ReadonlyArray<string>): Promise<PmResult> => {
  const r = await m.pm(args)
  expect(r.code, `${args.join(" ")} on ${m.name}: ${r.stdout}${r.stderr}`).toBe(0)
  return r
}

/** Two machines syncing one project (named "shop") through one bare remote. */
export const pair = async () => {
  const remote = bareRemote()
  const a = machine("alpha")
  const b = machine("beta")
  await ok(a, ["sync", "init", remote, "--name", "shop"])
  await ok(b, ["sync", "init", remote, "--name", "shop"])
  return { remote, a, b }
}

export const bareRemote = (): string => {
  const dir = join(tempDir("pm-remote-"), "memory.git")
  execFileSync("git", ["init", "-q", "--bare", dir])
  return dir
}

/**
 * Runs `work` with the remote out of reach (moved aside, then back): a `pm remember` or `pm forget` in it commits
 * locally and leaves its push for the next sync, as on a machine that is offline.
 */
export const offline = async <A>(remote: string, work: () => Promise<A>): Promise<A> => {
  renameSync(remote, `${remote}.away`)
  try {
    return await work()
  } finally {
    renameSync(`${remote}.away`, remote)
  }
}

/**
 * A folder holding a `git` that kills the process that ran it (pm, with SIGKILL) at the `nth` call of `subcommand`,
 * before that call does anything, and runs the real git otherwise: a sync killed at a chosen point.
 */
export const killingGit = (subcommand: string, nth = 1): string => {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  const dir = tempDir("pm-killgit-")
  const counter = join(dir, "count")
  const script = [
    "#!/bin/sh",
    `for a in "$@"; do`,
    `  if [ "$a" = "${subcommand}" ]; then`,
    `    n=$(( $(cat "${counter}" 2>/dev/null || echo 0) + 1 )); echo $n > "${counter}"`,
    `    if [ $n -eq ${nth} ]; then kill -9 $PPID; exit 137; fi`,
    "    break",
    "  fi",
    "done",
    `exec ${real} "$@"`,
    ""
  ].join("\n")
  writeFileSync(join(dir, "git"), script, { mode: 0o755 })
  return dir
}

/** A folder holding a `git` that runs `shell` once, before the first call of `subcommand`, then the real git. */
export const gitRunningFirst = (subcommand: string, shell: string): string => {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  const dir = tempDir("pm-pregit-")
  const done = join(dir, "done")
  const script = [
    "#!/bin/sh",
    `for a in "$@"; do`,
    `  if [ "$a" = "${subcommand}" ] && [ ! -e "${done}" ]; then : > "${done}"; ${shell}; break; fi`,
    "done",
    `exec ${real} "$@"`,
    ""
  ].join("\n")
  writeFileSync(join(dir, "git"), script, { mode: 0o755 })
  return dir
}
