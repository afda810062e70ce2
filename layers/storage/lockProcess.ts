/**
 * Who this process is, for the locks it takes and the ones it judges: pid liveness, a process's start time, this
 * process table's identity (boot id and PID namespace), the kind recorded as holder, and the tokens held right now.
 * Linux answers come from /proc; elsewhere they are undefined and a holder is judged by age.
 */
import { readFileSync, readlinkSync } from "node:fs"
import { startTimeOfStat } from "../../src/storage/lockFile.ts"

export const pidIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Linux: the start time of `pid` in clock ticks since boot; undefined elsewhere or when it cannot be read. */
export const processStartOf = (pid: number): string | undefined => {
  try {
    return startTimeOfStat(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return undefined
  }
}

/** Linux: boot id and PID namespace, which together say whether a recorded pid is one of ours to check. */
const readMachine = (): string | undefined => {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const ns = readlinkSync("/proc/self/ns/pid")
    return boot === "" ? undefined : `${boot}/${ns}`
  } catch {
    return undefined
  }
}
let ourMachine: string | undefined | null = null
export const machineOf = (): string | undefined => {
  if (ourMachine === null) ourMachine = readMachine()
  return ourMachine
}
let ourStart: string | undefined | null = null
export const ourStartTime = (): string | undefined => {
  if (ourStart === null) ourStart = processStartOf(process.pid)
  return ourStart
}

/** `pm forget` when this process is the pm CLI (its script is pm, pm.js...), else "a pm process" until set. */
const defaultKind = (): string => {
  const script = (process.argv[1] ?? "").split(/[\\/]/).pop() ?? ""
  if (!/^pm(\.[cm]?[jt]s)?$/.test(script)) return "a pm process"
  const command = process.argv.slice(2).find((a) => /^[a-z][a-z-]*$/.test(a))
  return command === undefined ? "pm" : `pm ${command}`
}
let holderKind = defaultKind()
/** What this process is, recorded in every lock it takes unless the caller names a kind ("pm forget", "a pi session"). */
export const setLockHolderKind = (kind: string): void => {
  holderKind = kind
}
/** The kind recorded in a lock when its caller names none. */
export const lockHolderKind = (): string => holderKind

/**
 * Tokens of the locks this process holds right now, whichever layer instance took them. A lock file naming our own
 * PID but a token not in here was left by an earlier process that had the same PID.
 */
export const liveTokens = new Set<string>()
