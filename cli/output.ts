/** Output and exit codes for `pm` (DECISIONS D9): JSON on stdout only, one-line errors on stderr. */
import * as Effect from "effect/Effect"
export const EXIT_OK = 0
export const EXIT_PROBLEMS = 1
export const EXIT_ERROR = 2

export const setExit = (code: number) => Effect.sync(() => {
  // The highest code wins: an error beats found problems.
  if ((process.exitCode as number | undefined ?? 0) < code) process.exitCode = code
})

export const printJson = (value: unknown) => Effect.sync(() => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`))
export const printLine = (line = "") => Effect.sync(() => process.stdout.write(`${line}\n`))
export const printError = (message: string) => Effect.sync(() => process.stderr.write(`pm: ${message.split("\n")[0]}\n`))

/** Prints a one-line error and sets exit 2. */
export const fail = (message: string) => Effect.zipRight(printError(message), setExit(EXIT_ERROR))

export const age = (mtimeMs: number, nowMs: number): string => {
  const s = Math.max(0, Math.floor((nowMs - mtimeMs) / 1000))
  if (s < 60) return "now"
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86_400)}d`
}

/** How long ago, in words: "just now", "5m ago", "3h ago", "2d ago". */
export const ago = (mtimeMs: number, nowMs: number): string => {
  const short = age(mtimeMs, nowMs)
  return short === "now" ? "just now" : `${short} ago`
}

/** A topic's age in whole days, in words: "today", "1 day ago", "3 days ago". */
export const daysAgo = (days: number): string => (days <= 0 ? "today" : `${days} day${days === 1 ? "" : "s"} ago`)

/** A plain aligned table; the last column is cut to the terminal width. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, width = process.stdout.columns ?? 120): string => {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)))
  return all
    .map((row) => {
      const line = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")
      // Never cut a surrogate pair: half an emoji prints as a replacement character.
      return line.length > width ? `${line.slice(0, Math.max(10, width - 1)).replace(/[\uD800-\uDBFF]$/, "")}…` : line
    })
    .join("\n")
}
