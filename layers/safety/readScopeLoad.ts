/**
 * The read scope of one background task (src/safety/readScope.ts), resolved on this machine: the worktree the session
 * works in and the project's root, the memory folder, the dream's session folder, each as given and after its
 * symlinks; which of the instruction files Pi loads exist; the system folders present; and, when a tree holds the
 * home folder, the home's dot entries that stay out (listed again before each sandboxed command). A folder that
 * cannot be resolved is taken as given, never widened.
 */
import { existsSync } from "node:fs"
import { readdir, realpath, stat } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { onPath } from "./sandboxHost.ts"
import { instructionFileCandidates, isAtOrUnder, type ReadScope, systemReadPaths } from "../../src/safety/readScope.ts"

export interface ReadScopeRequest {
  /** The parent session's cwd at task start. */
  readonly cwd: string
  /** The project's root as memory knows it (the main checkout for a linked worktree). */
  readonly projectRoot?: string | undefined
  /** The task's memory folder (absent for a check outside any task, `pm bash-check` without `--memory-dir`). */
  readonly memoryDir?: string | undefined
  /**
   * The dream's only: this project's Pi session folder, where it reads transcripts. Pi's own per-project folder
   * (under the agent folder's `sessions/`) is read whole; a folder of the user's, which may hold other projects'
   * sessions, only for the files of `sessionIds`.
   */
  readonly sessionDir?: string | undefined
  readonly sessionIds?: ReadonlyArray<string> | undefined
  readonly home: string
  readonly agentDir: string
  /** Folders of programs a sandboxed command runs beyond the system ones (the `rg` the grep tool finds). */
  readonly programs?: ReadonlyArray<string> | undefined
}

/** The folder holding `.git` (a folder, or a file in a linked worktree) at or above `cwd`; `cwd` when none does. */
export const worktreeRootOf = (cwd: string): string => {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir
    if (dirname(dir) === dir) return resolve(cwd)
  }
}

/** A path as given and after its symlinks (just as given when it cannot be resolved). */
const bothForms = async (p: string): Promise<Array<string>> => {
  const given = resolve(p)
  const real = await realpath(given).catch(() => given)
  return real === given ? [given] : [given, real]
}

/**
 * Where a program is, as Pi looks for its own tools: the agent folder's `bin/` first, then PATH; its real path
 * (symlinks resolved), or undefined when there is none.
 */
export const programPath = async (
  name: string,
  agentDir: string | undefined,
  pathVariable = process.env["PATH"] ?? ""
): Promise<string | undefined> => {
  const found = (agentDir === undefined ? undefined : onPath(name, join(agentDir, "bin"))) ?? onPath(name, pathVariable)
  return found === undefined ? undefined : await realpath(found).catch(() => found)
}

export const loadReadScope = async (request: ReadScopeRequest): Promise<ReadScope> => {
  const sessions = request.sessionDir === undefined || request.sessionDir === "" ? undefined : resolve(request.sessionDir)
  const ownSessionFolder = sessions !== undefined && isAtOrUnder(join(resolve(request.agentDir), "sessions"), sessions) &&
    sessions !== join(resolve(request.agentDir), "sessions")
  const roots = [worktreeRootOf(request.cwd), request.projectRoot, request.memoryDir, ownSessionFolder ? sessions : undefined]
    .filter((p): p is string => p !== undefined && p !== "")
  const trees = new Set<string>()
  for (const root of roots) for (const form of await bothForms(root)) if (form !== "/") trees.add(form)
  const files = new Set<string>()
  if (sessions !== undefined && !ownSessionFolder) {
    const ids = request.sessionIds ?? []
    for (const name of await readdir(sessions).catch(() => [])) {
      if (name.endsWith(".jsonl") && ids.some((id) => id !== "" && name.includes(id))) {
        for (const form of await bothForms(join(sessions, name))) files.add(form)
      }
    }
  }
  for (const candidate of instructionFileCandidates(resolve(request.cwd), request.agentDir)) {
    const isFile = await stat(candidate).then((s) => s.isFile(), () => false)
    if (isFile) for (const form of await bothForms(candidate)) files.add(form)
  }
  const system = new Set<string>()
  for (const dir of [...systemReadPaths(process.platform), ...(request.programs ?? [])]) {
    if (existsSync(dir)) for (const form of await bothForms(dir)) system.add(form)
  }
  const scope: ReadScope = { trees: [...trees], files: [...files], system: [...system], home: resolve(request.home), agentDir: resolve(request.agentDir), homeDotEntries: [] }
  return withCurrentHomeDotEntries(scope)
}

/**
 * The scope with the home's dot entries as they are now, when a tree holds the home (none otherwise). The sandbox
 * hides them by name, so the list is made again before each command: a folder a program creates in the home while a
 * task runs (a new tool's login) would otherwise stay mounted.
 */
export const withCurrentHomeDotEntries = async (scope: ReadScope): Promise<ReadScope> => {
  const home = scope.home
  const homeInTree = scope.trees.some((t) => isAtOrUnder(t, home))
  const homeDotEntries = homeInTree
    ? (await readdir(home).catch(() => [])).filter((name) => name.startsWith(".")).map((name) => join(home, name))
    : []
  return { ...scope, homeDotEntries }
}
