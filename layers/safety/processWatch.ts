/**
 * A host-side count of a sandboxed command's processes, the bound RLIMIT_NPROC cannot give when the host runs as
 * root. The command's shell is found among this process's children by a marker in its environment; every
 * `intervalMs` the processes below it are counted through /proc/<pid>/task/<tid>/children (Linux), stopping as soon
 * as the count passes the bound, so one check reads at most bound + 1 processes whatever runs on the host. Past the
 * bound `onExceeded` is called once and the watch stops. Everything inside the sandbox stays below the shell: the
 * sandbox has its own PID namespace, whose orphans go to its first process.
 */
import { readdirSync, readFileSync } from "node:fs"

/** The pids a process's threads have started, or none (gone, or no /proc). */
const childrenOf = (pid: number): Array<number> => {
  let tasks: Array<string>
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const out: Array<number> = []
  for (const tid of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) {
        if (word !== "") out.push(Number(word))
      }
    } catch {
      // the thread ended
    }
  }
  return out
}

/** The processes at and below `root`, counted until the count passes `bound` (bound + 1 at most). */
export const countProcessesBelow = (root: number, bound: number): number => {
  const queue = [root]
  let count = 0
  while (queue.length > 0 && count <= bound) {
    const pid = queue.shift()!
    count++
    for (const child of childrenOf(pid)) queue.push(child)
  }
  return count
}

/** The child of this process whose environment holds `marker` (a `NAME=value` pair), if there is one yet. */
export const childWithMarker = (marker: string): number | undefined => {
  for (const pid of childrenOf(process.pid)) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker)) return pid
    } catch {
      // gone already
    }
  }
  return undefined
}

export interface ProcessWatch {
  readonly stop: () => void
}

/**
 * Watches the command whose shell carries `marker`: past `bound` processes, `onExceeded(shellPid)` once. Without a
 * /proc (not Linux) nothing is watched.
 */
export const watchProcesses = (options: {
  readonly marker: string
  readonly bound: number
  readonly intervalMs: number
  readonly onExceeded: (shellPid: number) => void
}): ProcessWatch => {
  if (process.platform !== "linux") return { stop: () => undefined }
  let root: number | undefined
  const timer = setInterval(() => {
    root ??= childWithMarker(options.marker)
    if (root === undefined) return
    if (countProcessesBelow(root, options.bound) > options.bound) {
      clearInterval(timer)
      options.onExceeded(root)
    }
  }, options.intervalMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
