/**
 * The one git query the project locator makes (`rev-parse --show-toplevel --git-common-dir`) when the file system
 * cannot answer (gitDiscovery.ts). Node's child processes are loaded with the first query: a plain checkout never
 * asks git. Git missing or failing means "not in git" (undefined), never an error.
 */

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
export const askGit = async (cwd: string): Promise<GitAnswer | undefined> => {
  const { execFile } = await import("node:child_process")
  return new Promise((resolve) => {
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
}
