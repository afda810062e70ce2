/**
 * One git command of the memory history, run as a child of this process with the user's own `git`: bounded in time
 * and output, stopped when its fiber is interrupted, never prompting. Our commits run with a fixed identity and none
 * of the user's hooks or signing (`-c core.hooksPath=/dev/null -c commit.gpgsign=false`); a command that talks to the
 * remote (`network: true`) keeps the user's global configuration, which holds their credentials and ssh set-up.
 * Local commands read no global or system configuration at all, so nothing there (a template, an fsmonitor, a
 * pager) runs or changes what we commit. Never fails with a defect: every outcome is a `GitResult` or a `GitFailed`
 * (a child stopped at its time or output bound fails with code "timeout" or "output"; gitProcess.ts stops it).
 * Two read-only queries of the project's own repository live here too, run the same way: its `origin` (sync) and a
 * yes/no query (recall's symbol check), so there is one way this product runs git in a repository it does not own.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { hostname } from "node:os"
import { HISTORY_GIT_MAX_OUTPUT_BYTES, HISTORY_GIT_TIMEOUT_MS, SYNC_NETWORK_TIMEOUT_MS } from "../../src/limits.ts"
import { runBounded } from "./gitProcess.ts"

export class GitFailed extends Data.TaggedError("GitFailed")<{
  readonly args: ReadonlyArray<string>
  readonly code: number | string | null
  readonly stderr: string
}> {
  override get message(): string {
    const first = this.stderr.split("\n").find((l) => l.trim() !== "")?.trim() ?? `exit ${String(this.code)}`
    return `git ${this.args.find((a) => !a.startsWith("-") && !a.includes("=")) ?? ""} failed: ${first}`
  }
}

export interface GitResult {
  readonly stdout: string
  readonly stderr: string
  /** stdout's bytes, with `bytes: true`. */
  readonly raw?: Uint8Array
}

/** Where a history lives: its git folder (under the memory root) and its work tree (the memory folder). */
export interface HistoryRepo {
  readonly gitDir: string
  readonly workTree: string
}

export interface GitOptions {
  /** stdout as bytes (a blob's exact content), not decoded. */
  readonly bytes?: boolean
  /** Talks to the remote: the user's global configuration (credentials) is kept, and the longer bound applies. */
  readonly network?: boolean
  /** Bytes for stdin. */
  readonly input?: string
  /** Overrides the time bound (tests). */
  readonly timeoutMs?: number
  /** Exit codes that are answers, not failures (`merge-base --is-ancestor` answers 1). */
  readonly okCodes?: ReadonlyArray<number>
}

/**
 * The machine's name in our commits and conflict files: `PM_MACHINE_NAME` when set (two agent folders on one host,
 * or a name of one's choosing), else the host name; reduced to safe file-name characters.
 */
export const machineName = (): string => (process.env["PM_MACHINE_NAME"] || hostname()).toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "machine"

const FIXED: ReadonlyArray<string> = [
  "-c", "core.hooksPath=/dev/null",
  "-c", "commit.gpgsign=false",
  "-c", "tag.gpgsign=false",
  "-c", "core.autocrlf=false",
  "-c", "core.fsmonitor=false",
  "-c", "core.quotepath=false",
  "-c", "gc.auto=0",
  "-c", "safe.directory=*"
]

const envFor = (network: boolean): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: "pi-project-memory",
    GIT_AUTHOR_EMAIL: `pm@${machineName()}`,
    GIT_COMMITTER_NAME: "pi-project-memory",
    GIT_COMMITTER_EMAIL: `pm@${machineName()}`,
    LC_ALL: "C"
  }
  for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_NAMESPACE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CEILING_DIRECTORIES"]) {
    delete env[name]
  }
  if (!network) {
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = "/dev/null"
  }
  return env
}

/** Runs the user's git with `args` as one bounded child (gitProcess.ts); a GitFailed unless its code is in `ok`. */
const runBoundedGit = (
  args: ReadonlyArray<string>,
  shown: ReadonlyArray<string>,
  options: GitOptions & { readonly cwd?: string; readonly ok: ReadonlyArray<number> }
): Effect.Effect<GitResult & { readonly code: number }, GitFailed> =>
  Effect.flatMap(
    runBounded({
      command: "git",
      args,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: envFor(options.network === true),
      ...(options.input === undefined ? {} : { input: options.input }),
      timeoutMs: options.timeoutMs ?? (options.network === true ? SYNC_NETWORK_TIMEOUT_MS : HISTORY_GIT_TIMEOUT_MS),
      maxOutputBytes: HISTORY_GIT_MAX_OUTPUT_BYTES
    }),
    (outcome): Effect.Effect<GitResult & { readonly code: number }, GitFailed> => {
      switch (outcome._tag) {
        case "TimedOut":
          return Effect.fail(new GitFailed({ args: shown, code: "timeout", stderr: "stopped: it ran past its time bound" }))
        case "TooMuchOutput":
          return Effect.fail(new GitFailed({ args: shown, code: "output", stderr: `stopped: its ${outcome.stream} grew past its bound of ${HISTORY_GIT_MAX_OUTPUT_BYTES} bytes` }))
        case "NotStarted":
          return Effect.fail(new GitFailed({ args: shown, code: null, stderr: outcome.message }))
        case "Exited": {
          const stderr = outcome.stderr.toString("utf8")
          if (outcome.code === null || !options.ok.includes(outcome.code)) {
            return Effect.fail(new GitFailed({ args: shown, code: outcome.code, stderr: stderr || `exit ${String(outcome.code)}` }))
          }
          const stdout = options.bytes === true ? "" : outcome.stdout.toString("utf8")
          return Effect.succeed(options.bytes === true ? { stdout, stderr, raw: new Uint8Array(outcome.stdout), code: outcome.code } : { stdout, stderr, code: outcome.code })
        }
      }
    }
  )

const inRepo = (repo: HistoryRepo, args: ReadonlyArray<string>) => [...FIXED, `--git-dir=${repo.gitDir}`, `--work-tree=${repo.workTree}`, ...args]

/** Runs `git --git-dir=… --work-tree=… args` in the memory folder. */
export const runGit = (repo: HistoryRepo, args: ReadonlyArray<string>, options: GitOptions = {}): Effect.Effect<GitResult, GitFailed> =>
  runBoundedGit(inRepo(repo, args), args, { ...options, cwd: repo.workTree, ok: [0, ...(options.okCodes ?? [])] }).pipe(
    Effect.map(({ code: _code, ...result }) => result)
  )

/** The exit code of a command whose answer is its code (0 yes, 1 no). */
export const gitAnswers = (repo: HistoryRepo, args: ReadonlyArray<string>): Effect.Effect<boolean, GitFailed> =>
  runBoundedGit(inRepo(repo, args), args, { cwd: repo.workTree, ok: [0, 1] }).pipe(Effect.map((r) => r.code === 0))

/**
 * A yes/no query (exit 0 yes, 1 no) in the project repository that contains `dir`, read-only: the same fixed options
 * and environment as the history's local commands (no global or system configuration, fsmonitor and hooks off, so
 * reading the project's index runs none of its programs), no optional locks, no lazy fetch of a partial clone's
 * missing blobs. Undefined for anything else: git missing, not a repository, killed at `timeoutMs`, interrupted, or
 * more than `maxBytes` of output. Used by recall's symbol check (layers/recall/citedSymbols.ts).
 */
export const projectGitAnswers = (dir: string, args: ReadonlyArray<string>, timeoutMs: number, maxBytes: number): Effect.Effect<boolean | undefined> =>
  // The same bounded child as the history's commands: the bound is Effect's clock, and a stopped git is gone.
  runBounded({ command: "git", args: [...FIXED, ...args], cwd: dir, env: { ...envFor(false), GIT_NO_LAZY_FETCH: "1" }, timeoutMs, maxOutputBytes: maxBytes }).pipe(
    Effect.map((o) => (o._tag !== "Exited" ? undefined : o.code === 0 ? true : o.code === 1 ? false : undefined))
  )

/** The URL of `origin` of the project repository at `dir`, or undefined (no git, no origin). Read-only. */
export const originUrlOf = (dir: string): Effect.Effect<string | undefined> =>
  runBoundedGit(["-c", "safe.directory=*", "-C", dir, "remote", "get-url", "origin"], ["remote"], { ok: [0] }).pipe(
    Effect.map((r) => (r.stdout.trim() !== "" ? r.stdout.trim() : undefined)),
    Effect.orElseSucceed(() => undefined)
  )
