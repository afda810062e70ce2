/**
 * `pm extract`, the twin of `/memory extract`: the extractions that sessions of this project handed over to its queue
 * when they ended first (layers/background/handOff.ts), run now, oldest first, and waited for, in the extension's own
 * background graph with pm's pieces (cli/extractRun.ts, imported only when a job waits: with none, the command says
 * so without loading Pi or any background agent). It waits up to `--wait` seconds while another process runs the
 * queue, and says what it did in sentences.
 *
 * `--worker` (cli/extractWorker.ts) is the background worker a `pi -p` run starts: no wait for a busy queue, and
 * passes until no job it has not tried waits.
 *
 * Exit 0 when every queued job ran and left the queue (or none waits), 1 when one failed or jobs stay queued, 2 when
 * the command itself could not run.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { formatOutcome } from "../src/background/runs.ts"
import { trustLine } from "../src/project/projectTrust.ts"
import { extractionBlockedBy, switchesFor } from "../src/project/config.ts"
import type { DrainNowResult } from "../layers/background/sessionDrain.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import type { extractOptions, Parsed } from "./commandOptions.ts"
import { EXIT_PROBLEMS, fail, printJson, printLine, setExit } from "./output.ts"
import { inspect } from "./locate.ts"
import { makeQueueStore } from "../layers/background/queueStore.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { readProjectTrust } from "../layers/project/projectTrustFiles.ts"

/** How long `pm extract` waits for another process running the queue, by default. */
export const EXTRACT_QUEUE_WAIT_SECONDS = 120

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
      : { lines: [`${plural(waiting, "extraction")} ${waiting === 1 ? "waits" : "wait"} in ${root}'s queue, but none can run now: ${result.reason}. ${waiting === 1 ? "It stays" : "They stay"} queued.`], code: EXIT_PROBLEMS }
  }
  const lines: Array<string> = []
  if (result.runs.length === 0 && result.left === 0 && result.stoppedBecause === undefined && result.damaged.length === 0) lines.push(`Nothing is queued for ${root}.`)
  if (result.runs.length > 0) {
    lines.push(`Ran ${plural(result.runs.length, "queued extraction")} for ${root}, oldest first:`)
    for (const r of result.runs) lines.push(`- ${formatOutcome("extract", r.record)}${r.removed ? "" : "; it stays queued"}`)
  }
  for (const d of result.damaged) {
    lines.push(`A queue record that is not a job (${d.name}: ${d.reason}) was ${d.movedTo === undefined ? "left where it is" : `set aside as ${d.movedTo}`}; it is not run.`)
  }
  if (result.stoppedBecause !== undefined) lines.push(`The queue was not finished: ${result.stoppedBecause}.`)
  if (result.left > 0) lines.push(`${plural(result.left, "extraction")} ${result.left === 1 ? "stays" : "stay"} queued for the next interactive session of this project or \`pm extract\`.`)
  else if (result.runs.length > 0) lines.push("The queue is empty.")
  const failed = result.runs.some((r) => !r.removed || r.record.outcome === "failed")
  return { lines, code: failed || result.left > 0 || result.stoppedBecause !== undefined || result.damaged.length > 0 ? EXIT_PROBLEMS : 0 }
}

export const extract = ({ cwd, json, wait, worker }: Parsed<typeof extractOptions>) =>
  Effect.gen(function* () {
    const dir = resolve(cwd)
    const config = yield* ConfigService
    const agentDir = config.agentDir
    // Nothing queued, or nothing that may run here now: said without loading Pi or making the background graph.
    const location = yield* inspect(dir)
    const summary = yield* makeQueueStore(yield* FileSystem).summary(location.memoryRootDir)
    const trust = readProjectTrust(agentDir, dir)
    const blocked = extractionBlockedBy(switchesFor((yield* config.load).config, location.projectRoot), trust.state)
    if (summary.count === 0 || blocked !== null) {
      const reason = trust.state === "trusted" ? blocked : trustLine(trust)
      const report = extractReport(
        summary.count === 0 ? { _tag: "Drained", runs: [], left: 0, damaged: [] } : { _tag: "NotNow", reason: reason!, queue: summary },
        location.projectRoot
      )
      yield* setExit(report.code)
      return yield* json
        ? printJson({ ran: [], left: summary.count, damaged: [], stoppedBecause: summary.count === 0 ? null : reason })
        : Effect.forEach(report.lines, (line) => printLine(line))
    }
    if (worker) {
      const { runWorker } = yield* Effect.promise(() => import("./extractWorker.ts"))
      return yield* runWorker({ dir, agentDir, trusted: trust.state === "trusted", memoryRootDir: location.memoryRootDir, projectRoot: location.projectRoot, report: extractReport })
    }
    const waitMs = Math.max(0, Option.getOrElse(wait, () => EXTRACT_QUEUE_WAIT_SECONDS)) * 1000
    const { drainProject } = yield* Effect.promise(() => import("./extractRun.ts"))
    const result = yield* drainProject({ dir, agentDir, trusted: trust.state === "trusted", waitMs })
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
