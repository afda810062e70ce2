/**
 * What one sandboxed command may consume, and the text that enforces it. Pure, no I/O.
 *
 * - Inside the sandbox, before the command: `ulimit` lines (hard and soft together) for address space, CPU seconds,
 *   the size of any file it writes, and processes. RLIMIT_NPROC does not hold for root, so the host also counts the
 *   command's processes (layers/safety/processWatch.ts) and kills it past COMMAND_PROCESSES.
 * - On bubblewrap's line: every `--tmpfs` gets a `--size` (bubblewrap 0.8 and later), and /dev/shm (part of the
 *   unbounded tmpfs of `--dev`) is covered by a bounded one of its own.
 * - On the host: at most COMMAND_OUTPUT_BYTES of output is kept; past it the command is ended with a notice.
 */
import { shellQuote } from "./sandboxProcess.ts"

/** Address space of each process of the command (bytes). Tools such as git and rg reserve far less. */
export const COMMAND_MEMORY_BYTES = 2 * 1024 ** 3
/** CPU time of each process of the command (seconds); the wall-clock limit is the bash tool's timeout. */
export const COMMAND_CPU_SECONDS = 60
/** Largest file a command may write (bytes); a multiple of 1024, bash's unit for `ulimit -f`. */
export const COMMAND_FILE_BYTES = 64 * 1024 ** 2
/** Processes the command may have alive at once, itself included. */
export const COMMAND_PROCESSES = 256
/** Size of each tmpfs in the sandbox (bytes). */
export const SANDBOX_TMPFS_BYTES = 128 * 1024 ** 2
/** Output of one command the host keeps (bytes, the notice included); past it the command is ended. */
export const COMMAND_OUTPUT_BYTES = 16 * 1024 ** 2
/** How often the host counts a running command's processes (ms). */
export const PROCESS_WATCH_INTERVAL_MS = 50

/**
 * The `ulimit` lines, one per resource, hard and soft (`-HS`). A host whose hard limit is already lower keeps its
 * own (a limit cannot be raised), so a failure is silent: the stricter bound holds either way.
 */
export const commandLimitLines = (): ReadonlyArray<string> => [
  `ulimit -HSv ${COMMAND_MEMORY_BYTES / 1024} 2>/dev/null`,
  `ulimit -HSt ${COMMAND_CPU_SECONDS} 2>/dev/null`,
  `ulimit -HSf ${COMMAND_FILE_BYTES / 1024} 2>/dev/null`,
  `ulimit -HSu ${COMMAND_PROCESSES} 2>/dev/null`
]

/** The command with the limits applied first, in the shell that runs it inside the sandbox. */
export const withCommandLimits = (command: string): string => `${commandLimitLines().join("\n")}\n${command}`

/** Whether bubblewrap's `--version` text names a version that takes `--size` (0.8.0 and later). */
export const bwrapTakesSize = (versionText: string): boolean => {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(versionText)
  if (m === null) return false
  const [major, minor] = [Number(m[1]), Number(m[2])]
  return major > 0 || minor >= 8
}

/** The words of a shell line up to its first unquoted `--` (bubblewrap's options), with where each is written. */
const optionWords = (line: string): Array<{ readonly word: string; readonly start: number; readonly end: number }> => {
  const words: Array<{ word: string; start: number; end: number }> = []
  let i = 0
  while (i < line.length) {
    while (line[i] === " ") i++
    if (i >= line.length) break
    const start = i
    let word = ""
    while (i < line.length && line[i] !== " ") {
      const c = line[i]!
      if (c === "'") {
        const end = line.indexOf("'", i + 1)
        if (end < 0) return words
        word += line.slice(i + 1, end)
        i = end + 1
      } else if (c === "\"") {
        let j = i + 1
        while (j < line.length && line[j] !== "\"") j += line[j] === "\\" ? 2 : 1
        word += line.slice(i + 1, j).replace(/\\(.)/g, "$1")
        i = j + 1
      } else if (c === "\\") {
        word += line[i + 1] ?? ""
        i += 2
      } else {
        word += c
        i++
      }
    }
    if (word === "--" && line.slice(start, i) === "--") break
    words.push({ word, start, end: i })
  }
  return words
}

/**
 * bubblewrap's line with every tmpfs size-bounded: `--size SANDBOX_TMPFS_BYTES` before each `--tmpfs`, and after
 * `--dev DIR` a bounded tmpfs on DIR/shm. Without `--size` support (bubblewrap before 0.8) the line is unchanged.
 */
export const withBoundedTmpfs = (line: string, takesSize: boolean): string => {
  if (!takesSize) return line
  const size = `--size ${SANDBOX_TMPFS_BYTES}`
  const words = optionWords(line)
  const inserts: Array<{ readonly at: number; readonly text: string }> = []
  words.forEach(({ word, start, end }, i) => {
    const raw = line.slice(start, end)
    if (word === "--tmpfs" && raw === "--tmpfs" && words[i - 2]?.word !== "--size") {
      inserts.push({ at: start, text: `${size} ` })
    }
    const next = words[i + 1]
    if (word === "--dev" && raw === "--dev" && next !== undefined) {
      const dir = next.word.replace(/\/+$/, "")
      inserts.push({ at: next.end, text: ` ${size} --tmpfs ${shellQuote(`${dir}/shm`)}` })
    }
  })
  let out = line
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) out = out.slice(0, at) + text + out.slice(at)
  return out
}

/** The line the model reads at the end of a command's output when the host ended it for consuming too much. */
export const commandStoppedNotice = (why: "output" | "processes"): string =>
  why === "output"
    ? `\n[The command was stopped: its output passed ${COMMAND_OUTPUT_BYTES / 1024 ** 2} MiB, the most a background command may print. Narrow it (head, rg -m, a path or a pattern) and run it again.]\n`
    : `\n[The command was stopped: it had more than ${COMMAND_PROCESSES} processes at once, the most a background command may start. Run fewer at a time.]\n`

/** Whether a command with `count` processes alive is past its bound. */
export const pastProcessBound = (count: number): boolean => count > COMMAND_PROCESSES
