/**
 * The one git query the project locator makes (`rev-parse --show-toplevel --git-common-dir`), in plain Node so that
 * the extension's entry can start it before the session side has loaded: `prefetchGitQuery` at session start runs git
 * while the session side's modules are evaluated, and the locator's first query for that folder takes the answer
 * (`takePrefetched`) instead of starting git again. An answer is taken once; one nobody took is dropped
 * (`dropPrefetched`) when the session's start is over, so no later query ever sees an old answer.
 * Git missing or failing means "not in git" (undefined), never an error.
 */
import { execFile } from "node:child_process"

export interface GitAnswer {
  readonly toplevel: string
  readonly commonDir: string
}

/**
 * Read-only query: no optional locks, no pager, no prompts. Repository-selecting variables (set by git hooks, for
 * instance) are dropped, so the project is always the repository that contains the directory.
 */
const gitEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" }
  for (const name of ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"]) {
    delete env[name]
  }
  return env
}

/** Git's answer for the folder `cwd` (a canonical path), or undefined when it is not in a work tree git can name. */
export const askGit = (cwd: string): Promise<GitAnswer | undefined> =>
  new Promise((resolve) => {
    execFile(
      "git",
      // safe.directory=*: a checkout owned by another user (a container's bind mount, sudo) is still this project.
      // Git's ownership check exists because some commands run programs named in the repository's config
      // (core.fsmonitor for `status`, pagers, hooks); `rev-parse` with these two options runs none of them, so
      // trusting the config for this one query is safe. Never add a command here that reads the index or pages.
      ["-c", "safe.directory=*", "rev-parse", "--show-toplevel", "--git-common-dir"],
      { cwd, timeout: 10_000, windowsHide: true, env: gitEnv() },
      (error, stdout) => {
        if (error) return resolve(undefined)
        const [toplevel, commonDir] = stdout.split("\n")
        resolve(toplevel && commonDir ? { toplevel, commonDir } : undefined)
      }
    )
  })

const prefetched = new Map<string, Promise<GitAnswer | undefined>>()

/** Starts git's query for the canonical folder `cwd` now, for the locator's next query of it to take. */
export const prefetchGitQuery = (cwd: string): void => {
  if (!prefetched.has(cwd)) prefetched.set(cwd, askGit(cwd))
}

/** The prefetched query for `cwd`, if any, which no later call sees again. */
export const takePrefetched = (cwd: string): Promise<GitAnswer | undefined> | undefined => {
  const pending = prefetched.get(cwd)
  prefetched.delete(cwd)
  return pending
}

/** Drops every prefetched query nobody took (their processes end by themselves). */
export const dropPrefetched = (): void => prefetched.clear()
