/**
 * How a task's end becomes its run record (src/background/runs.ts): the extraction's outcome or the dream's attempt,
 * a failure, a defect or an interruption, each with its outcome, its detail in words, the files it changed (relative
 * to the memory directory) and the usage it spent. Pure mappings: saving a record, and telling anyone, is not theirs.
 */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { relative } from "node:path"
import { failedChanges, heldDetail, heldFiles, type RunRecord, unsavedDetail } from "../../src/background/runs.ts"
import type { UsageTotals } from "../../src/model/usage.ts"
import { deleteCapNote } from "../../src/writes/deleteCap.ts"
import type { DreamRunOutcome } from "./DreamAttempt.ts"
import type { DreamTaskResult } from "./dreamInterface.ts"
import type { ExtractionOutcome } from "./extractorInterface.ts"
import { isWithin } from "../../src/safety/toolPath.ts"
import type { StopReason } from "./Runner.ts"

/** What every record of one run starts from: its kind and trigger, no files, no turns, no usage. */
export type RecordBase = Pick<RunRecord, "kind" | "trigger" | "filesChanged" | "turns" | "usage">

/** What a record reads of a task's error. */
export type TaskFailure = { readonly message?: string; readonly reason?: string; readonly _tag?: string }

/** An error's reason for the record: its message, else its `reason` field, else its tag (never an empty string). */
export const reasonOf = (e: TaskFailure): string =>
  (e.message !== undefined && e.message !== "" ? e.message : undefined) ??
    (typeof e.reason === "string" && e.reason !== "" ? e.reason : undefined) ?? e._tag ?? "unknown error"

const defectReason = (cause: Cause.Cause<unknown>): string => {
  const line = Cause.pretty(cause).split("\n")[0]?.trim()
  return line === undefined || line === "" ? "unknown error" : line
}

/**
 * A task that returned: an error answer from the model, or changes it tried and could not make while saving none,
 * is a failure; one whose time budget ran out before it saved anything was stopped; otherwise it saved files or had
 * nothing to save.
 */
const ranOutcome = (
  stop: StopReason,
  errorMessage: string | undefined,
  changed: number,
  unsaved: ReadonlyArray<{ readonly file: string; readonly reason: string }>,
  detail: string
): { readonly outcome: RunRecord["outcome"]; readonly detail: string } =>
  stop === "api-error"
    ? { outcome: "failed", detail: `model error: ${errorMessage === undefined || errorMessage === "" ? "no message" : errorMessage}` }
    : stop === "too-large"
    ? { outcome: "failed", detail: `stopped before a request that would not fit: ${errorMessage ?? "the model's context window"}` }
    : changed === 0 && failedChanges(unsaved).length > 0
    ? { outcome: "failed", detail: unsavedDetail(failedChanges(unsaved).length) }
    : changed === 0 && heldFiles(unsaved).length > 0
    ? { outcome: "nothing", detail: heldDetail(heldFiles(unsaved).length) }
    : stop === "time-budget" && changed === 0
    ? { outcome: "stopped", detail }
    : { outcome: changed > 0 ? "saved" : "nothing", detail }

/** What a person is told when a background run saved files: which task, and every file it changed. */
export const savedNotice = (r: RunRecord): string =>
  `Project memory: the ${r.kind === "extract" ? "extraction" : "dream"} saved ${r.filesChanged.join(", ")} (/memory undo takes it back).`

/** The record of an interrupted run: what it spent until then. */
export const stoppedRecord = (base: RecordBase, detail: string, spent: UsageTotals): RunRecord => ({
  ...base,
  at: Date.now(),
  outcome: "stopped",
  detail,
  turns: spent.requests,
  usage: spent
})

/** A task that ran to its end: its write failures, else how it stopped and what it saved. */
const ranRecord = (
  base: RecordBase,
  ran: {
    readonly stop: StopReason
    readonly turns: number
    readonly filesChanged: ReadonlyArray<string>
    readonly errorMessage: string | undefined
    readonly writeFailures?: ReadonlyArray<string>
    readonly unsaved?: ReadonlyArray<{ readonly file: string; readonly reason: string }>
    readonly sandbox?: RunRecord["sandbox"]
  },
  detail: string,
  spent: UsageTotals,
  canonicalMemoryDir: string
): RunRecord => {
  const relativeToMemory = (p: string) => (isWithin(canonicalMemoryDir, p) && relative(canonicalMemoryDir, p) !== "" ? relative(canonicalMemoryDir, p) : p)
  return (ran.writeFailures?.length ?? 0) > 0
    ? {
      ...base,
      at: Date.now(),
      outcome: "failed",
      detail: `${ran.writeFailures!.length} write${ran.writeFailures!.length === 1 ? "" : "s"} failed, so memory was not saved: ${ran.writeFailures![0]}`,
      filesChanged: ran.filesChanged.map(relativeToMemory),
      turns: ran.turns,
      usage: spent,
      ...(ran.sandbox === undefined ? {} : { sandbox: ran.sandbox })
    }
    : {
      ...base,
      at: Date.now(),
      ...ranOutcome(ran.stop, ran.errorMessage, ran.filesChanged.length, ran.unsaved ?? [], detail),
      filesChanged: ran.filesChanged.map(relativeToMemory),
      turns: ran.turns,
      usage: spent,
      ...((ran.unsaved ?? []).length > 0 ? { unsaved: ran.unsaved } : {}),
      ...(ran.sandbox === undefined ? {} : { sandbox: ran.sandbox })
    }
}

/**
 * A task that failed, died or was interrupted. An interruption is a stop; so is an invalidated task when
 * `invalidStops` (the extraction's TaskInvalid: memory off, trust lost, a new generation).
 */
const failureRecord = (base: RecordBase, cause: Cause.Cause<TaskFailure>, spent: UsageTotals, invalidStops: boolean): RunRecord => {
  const failure = Cause.failureOption(cause)
  const interrupted = Cause.isInterruptedOnly(cause)
  return {
    ...base,
    at: Date.now(),
    outcome: interrupted || (invalidStops && Option.isSome(failure) && failure.value._tag === "TaskInvalid") ? "stopped" : "failed",
    detail: interrupted ? "interrupted" : Option.isSome(failure) ? reasonOf(failure.value) : defectReason(cause),
    turns: spent.requests,
    usage: spent
  }
}

const skipText: Record<string, string> = {
  "nothing-new": "no new messages",
  "main-agent-wrote": "the main agent already wrote memory",
  "too-few-words": "no user message of at least 3 words",
  "outside-content": "the turns brought outside content in (extractor.skipExternalContext)"
}

/** What becomes of an extraction's messages when extract.lock stayed busy for the whole wait, in a session. */
export const BUSY_LATER_IN_SESSION =
  "these messages are extracted by the next run in this session, or queued for the next interactive session of this project or `pm extract` when this one ends first"

/** How an extraction read the conversation, in a person's words: a fork of its request, or a request of its own. */
const MODE_TEXT: Record<"fork" | "independent", string> = {
  fork: "read this conversation",
  independent: "read the new messages in a request of its own"
}

/** The record of one extraction; `later` says what becomes of its messages when extract.lock stayed busy. */
export const extractionRecord = (
  exit: Exit.Exit<ExtractionOutcome, TaskFailure>,
  base: RecordBase,
  spent: UsageTotals,
  canonicalMemoryDir: string,
  later: string = BUSY_LATER_IN_SESSION
): RunRecord =>
  Exit.match(exit, {
    onSuccess: (o): RunRecord =>
      o.status === "skipped"
        ? { ...base, at: Date.now(), outcome: "skipped", detail: skipText[o.reason] ?? o.reason }
        : o.status === "busy"
        ? {
          ...base,
          at: Date.now(),
          outcome: "busy",
          detail: `extract.lock was held by ${o.holder} for all of the ${Math.round(o.waitedMs / 1000)} s waited; ${later}`
        }
        : o.stop === "too-large" && o.turns === 0
        ? { ...base, at: Date.now(), outcome: "skipped", detail: o.errorMessage ?? "the request does not fit the model's context window" }
        : o.stop === "aborted"
        ? { ...base, at: Date.now(), outcome: "stopped", detail: "the model request was aborted", turns: o.turns, usage: spent }
        : ranRecord(
          base,
          o,
          `${MODE_TEXT[o.mode]}${stopNote(o.stop, o.errorMessage)}${o.shortened === undefined ? "" : ` (${o.shortened})`}`,
          spent,
          canonicalMemoryDir
        ),
    onFailure: (cause) => failureRecord(base, cause, spent, true)
  })

/** How a task that ran was ended, when not by itself: ", turn limit reached", ", stopped: its time budget ... ran out". */
const stopNote = (stop: StopReason, errorMessage: string | undefined): string =>
  stop === "max-turns" ? ", turn limit reached" : stop === "time-budget" ? `, stopped: ${errorMessage ?? "its time budget ran out"}` : ""

const dreamDetail = (r: DreamTaskResult): string => {
  const how = stopNote(r.stop, r.errorMessage).slice(2) || "done"
  const index = r.index.overTarget
    ? `; MEMORY.md is over 160 lines or 20,000 characters (${r.index.lines} lines, ${r.index.chars} characters): later additions may be cut off`
    : ""
  const capped = r.deletesRefused.length > 0 ? `; ${deleteCapNote(r.deletesRefused, r.topicsAtStart ?? 0)}` : ""
  return `${how}${index}${capped}`
}

/** The record of one dream attempt. */
export const dreamRecord = (
  exit: Exit.Exit<DreamRunOutcome<DreamTaskResult>, TaskFailure>,
  base: RecordBase,
  spent: UsageTotals,
  canonicalMemoryDir: string
): RunRecord =>
  Exit.match(exit, {
    onSuccess: (o): RunRecord =>
      o._tag === "Busy"
        ? { ...base, at: Date.now(), outcome: "busy", detail: "dream.lock is held" }
        : o._tag === "Superseded"
        ? { ...base, at: Date.now(), outcome: "skipped", detail: "another session started a dream first" }
        : o._tag === "Failed"
        ? {
          ...base,
          at: Date.now(),
          outcome: "failed",
          detail: `${o.reason}${o.rolledBack ? " (the attempt time was rolled back)" : ""}`,
          turns: spent.requests,
          usage: spent
        }
        : ranRecord(base, o.value, dreamDetail(o.value), spent, canonicalMemoryDir),
    onFailure: (cause) => failureRecord(base, cause, spent, false)
  })
