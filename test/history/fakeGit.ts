/**
 * Stand-ins for the user's `git` in the history's limit tests: a folder holding a `git` script, put first on PATH.
 * `stallingGit` writes its pid to a file and to a fifo the test reads (an event, not a sleep), then waits on a second
 * fifo that nobody writes unless the test answers; `gitPrinting` writes a number of bytes, then exits or stalls the
 * same way; `gitRefusingPushes` refuses the first `times` pushes as a remote that moved would, then runs the real git.
 * With a subcommand named, the other subcommands run the real git.
 */
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { tempDir } from "../support/tmp.ts"

const realGit = (): string => execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()

export interface FakeGit {
  /** The folder to put first on PATH. */
  readonly dir: string
  /** The stalled child's pid, once it has reached its stall (waits for it). */
  readonly pid: () => Promise<number>
  /** The child's pid as written at its start (no wait). */
  readonly pidFile: () => number
  /** Lets a stalled child go on: it prints `answered` and exits 0. */
  readonly answer: () => Promise<void>
}

const write = (dir: string, lines: ReadonlyArray<string>) => writeFileSync(join(dir, "git"), ["#!/bin/sh", ...lines, ""].join("\n"), { mode: 0o755 })

/** The script's body for `subcommand` only (others run the real git), or for every call. */
const onlyFor = (subcommand: string | undefined, body: ReadonlyArray<string>): ReadonlyArray<string> =>
  subcommand === undefined
    ? body
    : [`mine=0; for a in "$@"; do [ "$a" = "${subcommand}" ] && mine=1; done`, `[ $mine = 1 ] || exec ${realGit()} "$@"`, ...body]

const stalling = (dir: string, before: ReadonlyArray<string>, subcommand?: string): FakeGit => {
  const ready = join(dir, "ready")
  const go = join(dir, "go")
  const pidFile = join(dir, "pid")
  execFileSync("mkfifo", [ready, go])
  write(dir, onlyFor(subcommand, [`echo $$ > "${pidFile}"`, ...before, `echo $$ > "${ready}"`, `read line < "${go}"`, "echo answered"]))
  return {
    dir,
    pid: async () => Number((await readFile(ready, "utf8")).trim()),
    pidFile: () => Number(readFileSync(pidFile, "utf8").trim()),
    answer: () => writeFile(go, "go\n")
  }
}

/** A git that stalls (at `subcommand` only, when given) until answered. */
export const stallingGit = (subcommand?: string): FakeGit => stalling(tempDir("pm-stallgit-"), [], subcommand)

/** A git that writes `bytes` bytes to `stream`, then exits 0 (`"exit"`) or stalls until answered (`"stall"`). */
export const gitPrinting = (bytes: number, stream: "stdout" | "stderr", then: "exit" | "stall"): FakeGit => {
  const print = `head -c ${bytes} /dev/zero${stream === "stderr" ? " >&2" : ""}`
  return stalling(tempDir("pm-printgit-"), then === "exit" ? [print, "exit 0"] : [print, "exec 1>/dev/null 2>/dev/null"])
}

/** A git whose first `times` pushes are refused as when the remote moved meanwhile; the rest run the real git. */
export const gitRefusingPushes = (times: number): { readonly dir: string; readonly pushes: () => number } => {
  const dir = tempDir("pm-refusegit-")
  const counter = join(dir, "count")
  write(dir, onlyFor("push", [
    `n=$(( $(cat "${counter}" 2>/dev/null || echo 0) + 1 )); echo $n > "${counter}"`,
    `if [ $n -le ${times} ]; then echo " ! [rejected]        pm/shop (fetch first)" >&2; exit 1; fi`,
    `exec ${realGit()} "$@"`
  ]))
  const pushes = () => {
    try {
      return Number(readFileSync(counter, "utf8").trim())
    } catch {
      return 0
    }
  }
  return { dir, pushes }
}

/** Whether a process with this pid still exists (a child that was stopped and reaped does not). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
