/**
 * `pm bash-check [--memory-dir DIR] [COMMAND]` (DECISIONS D9): how the background bash guard classifies commands.
 *
 * - One COMMAND: `{ command, verdict, reason }` (plus `targets` and `force` for a delete) with `--json`, a plain line
 *   otherwise. Exit 0, or 1 when the command is rejected.
 * - No COMMAND: JSON Lines on stdin, each line a JSON string holding one command; one JSON object per line on stdout,
 *   in input order. A line that is not a JSON string gets `{ line, error }`. Blank lines are skipped. Exit 0 when
 *   every line was read and allowed, 1 when any was rejected or malformed.
 * - Exit 2, with one line on stderr, when the parser cannot load or stdin cannot be read.
 *
 * Free of @effect/cli: the command definition in cli/commands.ts passes its parsed options here, and the CLI's graph
 * (cli/App.ts) provides BashGuard; a parser that cannot load fails the command with its message and exit 2.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { resolve } from "node:path"
import { BashGuard, type ClassifyContext, type Verdict } from "../layers/safety/BashGuard.ts"
import type { BashGuardShape } from "../layers/safety/bashGuardShape.ts"
import { loadProtection, protectedReadReason } from "../layers/safety/ProtectedReads.ts"
import { loadReadScope } from "../layers/safety/readScopeLoad.ts"
import type { ProtectionOptions } from "../src/safety/protectedPaths.ts"

export interface BashCheckArgs {
  /** The memory directory (absolute, or relative to cwd). Without it every rm is rejected. */
  readonly memoryDir?: string | undefined
  readonly cwd: string
  /** One command to check; absent: read JSON Lines from stdin. */
  readonly command?: string | undefined
  readonly json: boolean
  readonly stdin: AsyncIterable<string | Uint8Array> | NodeJS.ReadableStream
  /** Where output goes (default: process.stdout / process.stderr). */
  readonly stdout?: (text: string) => void
  readonly stderr?: (text: string) => void
  /** The protected paths to check reads against (default: the user's, from config.json, with the real home). */
  readonly protection?: ProtectionOptions
}

export interface BashCheckResult {
  readonly command: string
  readonly verdict: Verdict["verdict"]
  readonly reason: string
  readonly targets?: ReadonlyArray<string>
  readonly force?: boolean
}

export const EXIT_OK = 0
export const EXIT_REJECTED = 1
export const EXIT_ERROR = 2

/** What a read-only command's reads are refused for, in bash-check's words. */
export const PROTECTED_READ = "reads a protected path, so the background bash refuses it"

/**
 * The JSON object for one classified command. `protectedRead`: why a read-only command would still be refused (it
 * would open a protected path), as the background bash tool checks before it runs the command.
 */
export const toResult = (command: string, v: Verdict, protectedRead?: string): BashCheckResult => {
  switch (v.verdict) {
    case "read-only":
      if (protectedRead !== undefined) return { command, verdict: "rejected", reason: `${PROTECTED_READ}: ${protectedRead}` }
      return { command, verdict: v.verdict, reason: "every command is a read-only query on the allowlist, and it names no protected path" }
    case "delete":
      return {
        command,
        verdict: v.verdict,
        reason: `deletes ${v.targets.length} memory file${v.targets.length === 1 ? "" : "s"}${v.force ? " (missing files are ignored)" : ""}`,
        targets: v.targets,
        force: v.force
      }
    case "rejected":
      return { command, verdict: v.verdict, reason: v.reason }
  }
}

const plainLine = (r: BashCheckResult): string =>
  r.verdict === "rejected"
    ? `rejected: ${r.reason}`
    : r.verdict === "delete"
    ? `delete${r.force === true ? " (force)" : ""}: ${(r.targets ?? []).join(" ")}`
    : "read-only"

/** Parses one input line: a JSON string, or an error message. */
export const parseLine = (line: string): { readonly command: string } | { readonly error: string } => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (e) {
    return { error: `not valid JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  if (typeof value !== "string") return { error: `expected a JSON string holding one command, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}` }
  return { command: value }
}

const writer = (f: ((text: string) => void) | undefined, stream: NodeJS.WriteStream) =>
  f ?? ((text: string) => void stream.write(text))

/** Classifies one command as the background bash does: the guard, then the protected-read check of a read-only one. */
const checkOne = (guard: BashGuardShape, command: string, ctx: ClassifyContext, protection: ProtectionOptions) =>
  Effect.promise(async () => {
    const verdict = guard.classifySync(command, ctx)
    const why = verdict.verdict === "read-only"
      ? verdict.reads === undefined ? "the guard gave no list of what it reads" : await protectedReadReason(verdict.reads, protection)
      : undefined
    return toResult(command, verdict, why)
  })

const checkLines = (guard: BashGuardShape, args: BashCheckArgs, ctx: ClassifyContext, protection: ProtectionOptions) => {
  const out = writer(args.stdout, process.stdout)
  const decoder = new TextDecoder()
  let lineNo = 0
  let worst = EXIT_OK
  return Stream.fromAsyncIterable(
    args.stdin as AsyncIterable<string | Uint8Array>,
    (e) => new Error(`cannot read stdin: ${e instanceof Error ? e.message : String(e)}`)
  ).pipe(
    Stream.map((chunk) => (typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }))),
    Stream.splitLines,
    Stream.runForEach((line) =>
      Effect.gen(function* () {
        lineNo++
        if (line.trim().length === 0) return
        const parsed = parseLine(line)
        if ("error" in parsed) {
          worst = EXIT_REJECTED
          out(`${JSON.stringify({ line: lineNo, error: `line ${lineNo}: ${parsed.error}` })}\n`)
          return
        }
        const result = yield* checkOne(guard, parsed.command, ctx, protection)
        if (result.verdict === "rejected") worst = EXIT_REJECTED
        out(`${JSON.stringify(result)}\n`)
      })
    ),
    Effect.map(() => worst)
  )
}

/** The bash-check program over the graph's BashGuard, returning the exit code. */
export const bashCheck = (args: BashCheckArgs): Effect.Effect<number, never, BashGuard> =>
  Effect.gen(function* () {
    const guard = yield* BashGuard
    const cwd = resolve(args.cwd)
    const memoryDir = args.memoryDir === undefined ? undefined : resolve(cwd, args.memoryDir)
    const configured = args.protection ?? (yield* Effect.promise(() => loadProtection()))
    // What a task in this folder could read: its project (the git worktree of cwd), the memory folder when given.
    const scope = yield* Effect.promise(() =>
      loadReadScope({ cwd, memoryDir, home: configured.home, agentDir: configured.agentDir })
    )
    const protection: ProtectionOptions = { ...configured, scope: configured.scope ?? scope }
    const ctx: ClassifyContext = { cwd, memoryDir, reads: { home: protection.home } }
    if (args.command !== undefined) {
      const result = yield* checkOne(guard, args.command, ctx, protection)
      const out = writer(args.stdout, process.stdout)
      // ---- SANDBOX MODE LINE -------------------------------------------------------------------------------------
      // The sandbox's one line (which mode the background bash runs in) is printed here, before the verdict, by the
      // sandbox's own helper. Nothing of it belongs to the guard.
      // -------------------------------------------------------------------------------------------------------------
      out(args.json ? `${JSON.stringify(result, null, 2)}\n` : `${plainLine(result)}\n`)
      return result.verdict === "rejected" ? EXIT_REJECTED : EXIT_OK
    }
    return yield* checkLines(guard, args, ctx, protection).pipe(
      Effect.catchAll((e) =>
        Effect.sync(() => {
          writer(args.stderr, process.stderr)(`pm: ${e.message}\n`)
          return EXIT_ERROR
        })
      )
    )
  })
