/**
 * Runs a command under the real bash in a fresh temporary directory, to show that a case the guard rejects matters:
 * bash really runs the hidden part. Commands here are the tests' own payloads (they `touch` a marker file).
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface SandboxRun {
  /** The directory the command ran in (`<root>/work`); `<root>/out` is a sibling outside it. */
  readonly root: string
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  /** Whether a file exists, relative to root. */
  readonly exists: (relative: string) => boolean
  readonly cleanup: () => void
}

/**
 * `files`: names (relative to the work directory) created empty before the run, such as memory files named like
 * options. PATH is kept (the real programs matter), the environment is otherwise minimal.
 */
export const runInSandbox = (command: string, files: ReadonlyArray<string> = []): SandboxRun => {
  const root = mkdtempSync(join(tmpdir(), "guard-bash-"))
  const work = join(root, "work")
  mkdirSync(work)
  for (const f of files) writeFileSync(join(work, f), "")
  const r = spawnSync("bash", ["-c", command], {
    cwd: work,
    encoding: "utf8",
    timeout: 10_000,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" }
  })
  return {
    root,
    status: r.status,
    stdout: r.stdout ?? "",
    stderr: r.stderr ?? "",
    exists: (relative) => existsSync(join(root, relative)),
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }
}
