/**
 * `pm extract`, the twin of `/memory extract`: the extractions that sessions of this project handed over to its queue
 * when they ended first (layers/background/handOff.ts), run now, oldest first, and waited for. It builds the
 * extension's own background graph (layers/app/ExtensionApp.ts) with pm's pieces in place of the host's: a Host for
 * this directory with no branch (trusted as Pi would trust a session here; notifications as sentences on stderr),
 * Pi's model runtime as the registry (cli/PiModelRuntime.ts, as `pm recall` has it), Pi's own module for the tools
 * (cli/piHost.ts), and no status line. Then the background session starts as a session would and runs the queue
 * (layers/background/sessionDrain.ts), waiting up to `--wait` seconds while another process runs it.
 *
 * Exit 0 when every queued job ran and left the queue (or none waits), 1 when one failed or jobs stay queued, 2 when
 * the command itself could not run. Imported only by this subcommand: no other loads the background agents.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { resolve } from "node:path"
import { formatOutcome } from "../src/background/runs.ts"
import { trustLine } from "../src/project/projectTrust.ts"
import { extensionLayer } from "../layers/app/ExtensionApp.ts"
import { BackgroundHost, BackgroundSession } from "../layers/background/BackgroundSession.ts"
import { PiToolkit } from "../layers/background/PiToolkit.ts"
import type { DrainNowResult } from "../layers/background/sessionDrain.ts"
import { ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { Host, type HostShape } from "../layers/session/Host.ts"
import type { extractOptions, Parsed } from "./commandOptions.ts"
import { EXIT_PROBLEMS, fail, printJson, printLine, setExit } from "./output.ts"
import { extensionsFromEnv, loadPiModelBackend } from "./PiModelRuntime.ts"
import { importPiHost } from "./piHost.ts"
import { inspect } from "./locate.ts"
import { makeQueueStore } from "../layers/background/queueStore.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { readProjectTrust } from "./trust.ts"

/** How long `pm extract` waits for another process running the queue, by default. */
export const EXTRACT_QUEUE_WAIT_SECONDS = 120

const stderrLine = (line: string) => Effect.sync(() => void process.stderr.write(`${line.replace(/\s*\n\s*/g, " ")}\n`))

/** The session pm stands in for: this directory, no branch, Pi's trust as the files say, sentences on stderr. */
const pmHost = (cwd: string, trusted: boolean): HostShape => {
  const session = `pm-extract-${randomUUID()}`
  return {
    cwd: Effect.succeed(cwd),
    sessionId: Effect.succeed(session),
    isTrusted: Effect.succeed(trusted),
    isIdle: Effect.succeed(true),
    branch: Effect.succeed([]),
    entries: Effect.succeed([]),
    notify: (message, level) => stderrLine(level === "info" ? `pm: ${message}` : `pm: ${level}: ${message}`),
    appendEntry: () => Effect.void,
    sendHidden: () => Effect.void
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** What the drain did, in sentences; the exit code it means. */
export const extractReport = (result: DrainNowResult, root: string): { readonly lines: ReadonlyArray<string>; readonly code: number } => {
  if (result._tag === "Busy") {
    return { lines: [`Another process runs this project's queue (${result.holder}); it runs the queued extractions, and \`pm extract\` stopped waiting for it.`], code: EXIT_PROBLEMS }
  }
  if (result._tag === "NotNow") {
    const waiting = result.queue?.count ?? 0
    return waiting === 0
      ? { lines: [`Nothing is queued for ${root}, and nothing could run now: ${result.reason}.`], code: 0 }
      : { lines: [`${plural(waiting, "extraction")} wait in ${root}'s queue, but none can run now: ${result.reason}. They stay queued.`], code: EXIT_PROBLEMS }
  }
  const lines: Array<string> = []
  if (result.runs.length === 0 && result.left === 0 && result.stoppedBecause === undefined) lines.push(`Nothing is queued for ${root}.`)
  if (result.runs.length > 0) {
    lines.push(`Ran ${plural(result.runs.length, "queued extraction")} for ${root}, oldest first:`)
    for (const r of result.runs) lines.push(`- ${formatOutcome("extract", r.record)}${r.removed ? "" : " It stays queued."}`)
  }
  for (const d of result.damaged) {
    lines.push(`A queue record that is not a job (${d.name}: ${d.reason}) was ${d.movedTo === undefined ? "left where it is" : `set aside as ${d.movedTo}`}; it is not run.`)
  }
  if (result.stoppedBecause !== undefined) lines.push(`The queue was not finished: ${result.stoppedBecause}.`)
  if (result.left > 0) lines.push(`${plural(result.left, "extraction")} ${result.left === 1 ? "stays" : "stay"} queued for the next session of this project or \`pm extract\`.`)
  else if (result.runs.length > 0) lines.push("The queue is empty.")
  const failed = result.runs.some((r) => !r.removed || r.record.outcome === "failed")
  return { lines, code: failed || result.left > 0 || result.stoppedBecause !== undefined || result.damaged.length > 0 ? EXIT_PROBLEMS : 0 }
}

export const extract = ({ cwd, json, wait }: Parsed<typeof extractOptions>) =>
  Effect.gen(function* () {
    const dir = resolve(cwd)
    const config = yield* ConfigService
    const agentDir = config.agentDir
    // Nothing queued: said without loading Pi or making the background graph.
    const location = yield* inspect(dir)
    if ((yield* makeQueueStore(yield* FileSystem).summary(location.memoryRootDir)).count === 0) {
      const none = { _tag: "Drained", runs: [], left: 0, damaged: [] } as const
      return yield* json ? printJson({ ran: [], left: 0, damaged: [], stoppedBecause: null }) : printLine(extractReport(none, location.projectRoot).lines[0])
    }
    const pi = yield* Effect.tryPromise({ try: () => importPiHost(), catch: (e) => ({ message: e instanceof Error ? e.message : String(e) }) })
    const models = ModelRegistry.layerOnFirstUse(
      Effect.flatMap(extensionsFromEnv(), (extensions) => loadPiModelBackend({ agentDir, cwd: dir, extensions }))
    )
    const trust = readProjectTrust(agentDir, dir)
    const layer = extensionLayer({
      host: Layer.succeed(Host, pmHost(dir, trust.state === "trusted")),
      models,
      toolkit: PiToolkit.layer(pi),
      background: BackgroundHost.layerNoop,
      holderKind: "pm extract"
    })
    const waitMs = Math.max(0, Option.getOrElse(wait, () => EXTRACT_QUEUE_WAIT_SECONDS)) * 1000
    const result = yield* Effect.gen(function* () {
      const bg = yield* BackgroundSession
      yield* bg.start
      return yield* bg.drainNow({
        waitMs,
        lockKind: "pm extract",
        onWait: (holder) => stderrLine(`pm: waiting for ${holder}, which runs this project's queue`)
      })
    }).pipe(Effect.provide(layer), Effect.scoped)
    const withTrust = result._tag === "NotNow" && trust.state !== "trusted" ? { ...result, reason: trustLine(trust) } : result
    const report = extractReport(withTrust, location.projectRoot)
    yield* setExit(report.code)
    if (json) {
      return yield* printJson(
        result._tag === "Drained"
          ? {
            ran: result.runs.map((r) => ({ session: r.entry.job.session, queuedAt: r.entry.job.queuedAt, removed: r.removed, ...r.record })),
            left: result.left,
            damaged: result.damaged,
            stoppedBecause: result.stoppedBecause ?? null
          }
          : result
      )
    }
    for (const line of report.lines) yield* printLine(line)
  }).pipe(Effect.catchAll((e) => fail(e.message)))
