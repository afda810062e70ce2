/**
 * `pm status` (what is there) and `pm doctor` (what is wrong): one glance at a project's memory. Status answers from
 * files and PATH alone (the sandbox's programs and the last run's use of it, cli/sandboxStatus.ts); doctor also starts
 * the sandbox for a trial command, which status leaves to it.
 */
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { LockJudgement } from "../src/storage/lockFile.ts"
import { locksDirOf } from "../src/storage/layout.ts"
import { decodeBackgroundConfig } from "../src/background/config.ts"
import { describeSwitches, extractionBlockedBy, offReason, switchesFor } from "../src/project/config.ts"
import { eligibleAt } from "../src/background/dreamSchedule.ts"
import { earlierRuns, formatHistoryLine, formatRun, RUNS_FILE } from "../src/background/runs.ts"
import { latestRuns, parseRunHistory, type RunHistory } from "../src/background/runHistory.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { LockService } from "../layers/storage/LockService.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { StateStore } from "../layers/storage/StateStore.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { makeQueueStore, type QueueSummary } from "../layers/background/queueStore.ts"
import { makeHeldStore } from "../layers/writes/heldStore.ts"
import { Journal } from "../layers/writes/Journal.ts"
import { markerOwnerAlive } from "../layers/writes/openTasks.ts"
import type { Parsed, statusOptions } from "./commandOptions.ts"
import { withMemoryDir } from "./locate.ts"
import { findPi } from "./piHost.ts"
import { sandboxMode, sandboxModeLine } from "../src/safety/sandbox.ts"
import { lastSandboxUse, sandboxPrograms, sandboxStatusLine } from "./sandboxStatus.ts"
import { readProjectTrust } from "../layers/project/projectTrustFiles.ts"
import { trustLine } from "../src/project/projectTrust.ts"
import { piLoads, piLoadsLine } from "./piLoads.ts"
import { nextDreamText } from "../src/session/nextDream.ts"
import { describeHistoryStatus, historyStatusOf } from "../layers/history/syncStatus.ts"
import { ago, EXIT_PROBLEMS, fail, printJson, printLine, setExit } from "./output.ts"


/** One lock as `pm status` shows it. */
const lockLine = (l: { name: string; holder: string; ageMs: number; judgement: string }): string => {
  const state = l.judgement === "fresh"
    ? "held"
    : l.judgement === "stale"
    ? "stale: its holder is gone, the next task takes it over"
    : l.judgement === "holder-alive"
    ? "overdue: past its timeout, holder still alive"
    : "unreadable"
  return `${l.name}: ${l.holder}; last heartbeat ${Math.round(l.ageMs / 1000)} s ago (${state})`
}
/** A change under way or interrupted, as `pm status` and `pm doctor` say it. */
const openLine = (o: { task: string; kind: string | null; pid: number | null; interrupted: boolean }): string =>
  o.interrupted
    ? `${o.kind ?? "a change"} ${o.task} was interrupted (its process${o.pid === null ? "" : `, pid ${o.pid},`} is gone); the next change of memory rolls it back`
    : `${o.kind ?? "a change"} ${o.task}, by pid ${o.pid ?? "?"}, under way`
const CLEAR_HINT = "To clear a lock: let its holder finish, or stop it (kill PID); a lock whose holder is gone is taken over by the next task, or remove its file (pm doctor names it)."

/** The version of the Pi that `pm` would use (cli/piHost.ts); never loads it. */
const piVersion = (): string | null => findPi()?.version ?? null

const nodeOk = (): boolean => {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 19)
}

/** The recent background runs, as the extension recorded them: the newest of each kind, and all kept, oldest first. */
const backgroundRuns = (projectDir: string) => {
  let recent: RunHistory = []
  try {
    recent = parseRunHistory(readFileSync(join(projectDir, RUNS_FILE), "utf8"))
  } catch {
    // No run yet (or an unreadable file): nothing to show.
  }
  return { ...latestRuns(recent), recent }
}

/** The queue's line: how many extractions wait, since when, and what holds them back. */
export const queueStatusLine = (q: QueueSummary & { readonly blockedBy: string | null }, now: number): string => {
  const damaged = q.damaged === 0 ? "" : `; ${q.damaged} unreadable record${q.damaged === 1 ? "" : "s"} set aside in queue/damaged/`
  if (q.count === 0) return `none waiting${damaged}`
  const waiting = `${q.count} extraction${q.count === 1 ? "" : "s"} handed over by ended sessions, the oldest queued ${ago(q.oldestAt!, now)}`
  return q.blockedBy === null
    ? `${waiting}; the next interactive session of this project runs them, pm extract now${damaged}`
    : `${waiting}; they wait: ${q.blockedBy}${damaged}`
}

/** Whether the sandbox is started for a trial (`pm doctor`) or only its programs looked up on PATH (`pm status`). */
type SandboxCheck = "trial" | "programs"

/** The sandbox started and stopped for a trial command: the runtime is loaded only for this. */
const sandboxTrial = Effect.promise(() => import("../layers/safety/Sandbox.ts")).pipe(
  Effect.flatMap(({ defaultSandbox, sandboxAvailability }) => sandboxAvailability(defaultSandbox()))
)

const gather = (cwd: string, memoryDir: Option.Option<string>, check: SandboxCheck) =>
  Effect.gen(function* () {
    const config = yield* ConfigService
    const { config: cfg, warnings } = yield* config.load
    // Inspection only: no marker claimed, no directory made, no index backfilled.
    const location = yield* withMemoryDir(yield* (yield* ProjectLocator).inspect(resolve(cwd)), memoryDir)
    const store = yield* MemoryStore
    const { topics, skipped } = yield* store.scanTopics(location.memoryDir)
    const index = yield* store.peekIndex(location.memoryDir)
    const state = yield* (yield* StateStore)
      .read({ rootDir: location.memoryRootDir, legacyFile: location.legacyStatePath })
      .pipe(Effect.either)
    const lockService = yield* LockService
    const locksDir = locksDirOf(location.memoryRootDir)
    // Every file in the locks directory, known or not: a lock nobody reports is a lock nobody clears.
    const locks = yield* lockService.inspectAll(locksDir).pipe(
      Effect.map((all) =>
        all.map((s) => ({
          name: s.name,
          path: join(locksDir, s.name),
          pid: s.holder?.pid ?? null,
          host: s.holder?.host ?? null,
          kind: s.holder?.kind ?? null,
          acquiredAt: s.holder?.acquiredAt ?? null,
          heldForMs: Math.round(s.heldForMs),
          ageMs: Math.round(s.ageMs),
          judgement: s.judgement as LockJudgement | "unreadable",
          holder: s.description
        }))
      ),
      Effect.orElseSucceed(() => [{
        name: "locks/",
        path: locksDir,
        pid: null,
        host: null,
        kind: null,
        acquiredAt: null,
        heldForMs: 0,
        ageMs: 0,
        judgement: "unreadable" as const,
        holder: "the locks directory cannot be read"
      }])
    )
    // Changes under way, or interrupted (their process gone) and waiting for the next change of memory to roll them back.
    const open = (yield* (yield* Journal).openTasks({ rootDir: location.memoryRootDir })).map((m) => ({
      task: m.task,
      kind: m.marker?.kind ?? null,
      pid: m.marker?.pid ?? null,
      since: m.marker?.at ?? null,
      interrupted: !markerOwnerAlive(m)
    }))
    const readText = (path: string): string | undefined => {
      try {
        return readFileSync(path, "utf8")
      } catch {
        return undefined
      }
    }
    const configText = readText(config.configPath)
    const decodedBackground = configText === undefined ? undefined : decodeBackgroundConfig(config.configPath, configText)
    const background = decodedBackground?.config
    const switches = switchesFor(cfg, location.projectRoot)
    const thresholds = background?.dreamThresholds
    const lastDreamAt = state._tag === "Right" ? state.right.state.lastDreamAt : null
    // Whether the background shell runs in the OS sandbox here: started for a trial, or its programs looked up.
    const availability = check === "trial" ? yield* sandboxTrial : sandboxPrograms()
    const whenUnavailable = cfg.sandbox.whenUnavailable
    const runs = backgroundRuns(location.projectDir)
    const lastUse = lastSandboxUse(runs.recent)
    const queue = yield* makeQueueStore(yield* FileSystem).summary(location.memoryRootDir)
    // Background writes waiting for the person's review (`pm review`).
    const held = (yield* makeHeldStore(yield* FileSystem).list(location.memoryRootDir)).length
    const trust = readProjectTrust(config.agentDir, cwd)
    return {
      enabled: switches.memory.on,
      /** Each switch in force for this project and the level it comes from. */
      switches,
      /** Whether Pi trusts a session started in this directory: without trust, memory injects and recalls nothing. */
      trust,
      configPath: config.configPath,
      configWarnings: [...warnings.map((w) => w.message), ...(decodedBackground?.warnings ?? [])],
      location,
      topics: topics.length,
      skipped,
      index: { exists: index.exists, lines: index.lines, chars: index.chars, truncated: index.truncated },
      lastDreamAt,
      dream: {
        /** Epoch ms when the time condition is met (null: now, never dreamed). */
        eligibleAt: lastDreamAt === null ? null : eligibleAt(lastDreamAt, thresholds),
        minSessions: (thresholds ?? { minSessions: 5 }).minSessions
      },
      stateSource: state._tag === "Right" ? state.right.source : "unreadable",
      /** Extractions handed over by sessions that ended first, and why they cannot run now (null: they can). */
      queue: { ...queue, blockedBy: extractionBlockedBy(switches, trust.state) },
      held,
      locks,
      open,
      background: runs,
      versions: { node: process.versions.node, pi: piVersion() },
      sandbox: {
        mode: sandboxMode(availability, whenUnavailable),
        whenUnavailable,
        reason: availability._tag === "Unavailable" ? availability.reason : null,
        /** `started`: a trial command ran in it; `installed`: its programs are on PATH, nothing was started. */
        checked: check === "trial" ? "started" as const : "installed" as const,
        line: check === "trial" ? sandboxModeLine(availability, whenUnavailable) : `sandbox: ${sandboxStatusLine(availability, whenUnavailable, runs.recent, Date.now())}`,
        /** The newest background run that says how its bash ran (null: none yet). */
        lastRun: lastUse === undefined ? null : { kind: lastUse.kind, at: lastUse.at, mode: lastUse.sandbox }
      },
      selectorModel: cfg.selector.model ?? null,
      /** The models config.json names, by key (`pm doctor` checks that Pi knows each). */
      configuredModels: [
        ...(cfg.selector.model === undefined ? [] : [{ key: "selector.model", value: cfg.selector.model }]),
        ...(background?.extractor.model === undefined ? [] : [{ key: "extractor.model", value: background.extractor.model }]),
        ...(background?.dream.model === undefined ? [] : [{ key: "dream.model", value: background.dream.model }])
      ]
    }
  })

/** Whether Pi started here loads project memory (its own package manager, run beside the rest of the status). */
const piLoadsHere = (cwd: string) =>
  Effect.flatMap(ConfigService, (config) =>
    Effect.promise(async () => {
      const dir = resolve(cwd)
      return { agentDir: config.agentDir, loads: await piLoads(config.agentDir, dir, readProjectTrust(config.agentDir, dir).state === "trusted") }
    }))

export const status = ({ cwd, json, memoryDir }: Parsed<typeof statusOptions>) =>
  Effect.all([gather(cwd, memoryDir, "programs"), piLoadsHere(cwd)], { concurrency: 2 }).pipe(
    Effect.flatMap(([s, pi]) =>
      Effect.gen(function* () {
        // The memory history and its sync (git runs only when sync is on).
        const history = yield* historyStatusOf(yield* FileSystem, { memoryRootDir: s.location.memoryRootDir, memoryDir: s.location.memoryDir })
        if (json) return yield* printJson({ ...s, history, piLoads: pi.loads })
        const now = Date.now()
        yield* printLine(`Project memory ${s.enabled ? "on" : "off"}  (${s.configPath})`)
        yield* printLine(`Pi:         ${piLoadsLine(pi.loads, pi.agentDir)}`)
        yield* printLine(`Switches:   ${describeSwitches(s.switches)}`)
        yield* printLine(`Project:    ${s.location.projectRoot}`)
        yield* printLine(`Memory:     ${s.location.memoryDir}`)
        yield* printLine(`Trust:      ${trustLine(s.trust)}`)
        yield* printLine(`Topics:     ${s.topics}${s.skipped.length > 0 ? ` (${s.skipped.length} skipped: pm scan shows why)` : ""}`)
        yield* printLine(`Index:      ${s.index.exists ? `${s.index.lines} line${s.index.lines === 1 ? "" : "s"}, ${s.index.chars} characters${s.index.truncated ? ", truncated when loaded" : ""}` : "none"}`)
        yield* printLine(`Last dream: ${s.lastDreamAt === null ? "never" : `${new Date(s.lastDreamAt).toISOString()} (${ago(s.lastDreamAt, now)})`}`)
        yield* printLine(formatRun("extract", s.background.extract))
        if (s.background.dream !== undefined) yield* printLine(`Dream run:  ${formatRun("dream", s.background.dream).replace(/^Last dream:\s*/, "")}`)
        // Each run once: the newest of each kind in full above, the ones before it in the list.
        const earlier = earlierRuns(s.background.recent, s.background)
        if (earlier.length > 0) {
          yield* printLine("Earlier background runs (newest first):")
          for (const r of [...earlier].reverse()) yield* printLine(formatHistoryLine(r))
        }
        yield* printLine(`Next dream: ${nextDreamText(s.dream.eligibleAt, now, s.dream.minSessions)}`)
        yield* printLine(`Queued:     ${queueStatusLine(s.queue, now)}`)
        if (s.held > 0) yield* printLine(`Held:       ${s.held} background write${s.held === 1 ? "" : "s"} waiting for your review (pm review)`)
        for (const line of describeHistoryStatus(history, now)) yield* printLine(line.replace(/^([A-Za-z ]+): /, (_, label: string) => `${label}: `.padEnd(12)))
        if (s.locks.length === 0) yield* printLine("Locks:      none held")
        else {
          yield* printLine("Locks:")
          for (const l of s.locks) yield* printLine(`  ${lockLine(l)}`)
          if (s.locks.some((l) => l.judgement !== "fresh")) yield* printLine(`  ${CLEAR_HINT}`)
        }
        for (const o of s.open) yield* printLine(`Changing:   ${openLine(o)}`)
        yield* printLine(`Selector:   ${s.selectorModel ?? "the session's model (Pi) / Pi's default model (pm)"}`)
        yield* printLine(`Versions:   node ${s.versions.node}, pi ${s.versions.pi ?? "not found"}`)
        yield* printLine(`Sandbox:    ${s.sandbox.line.replace(/^sandbox: /, "")}`)
        // Configuration problems are shown here too, not only by `pm doctor`.
        for (const w of s.configWarnings) yield* printLine(`Config:     problem: ${w}`)
      })
    ),
    Effect.catchAll((e) => fail(e.message))
  )

export const doctor = ({ cwd, json, memoryDir }: Parsed<typeof statusOptions>) =>
  gather(cwd, memoryDir, "trial").pipe(
    Effect.flatMap((s) =>
      Effect.gen(function* () {
        const problems: Array<{ code: string; message: string }> = []
        for (const w of s.configWarnings) problems.push({ code: "config-invalid", message: w })
        // The model check (and the registry's model references) is doctor's alone: `pm status` does not load it.
        problems.push(...(yield* Effect.flatMap(Effect.promise(() => import("./modelCheck.ts")), (m) => m.configuredModelProblems(cwd, s.configuredModels))))
        if (!nodeOk()) problems.push({ code: "node-too-old", message: `Node ${s.versions.node} is older than 22.19, which Pi 1.x needs.` })
        if (s.versions.pi === null) problems.push({ code: "pi-not-found", message: "The Pi host package is not installed beside pm; model-based recall needs it." })
        if (s.trust.state !== "trusted") {
          problems.push({ code: s.trust.state === "untrusted" ? "project-untrusted" : "trust-undecided", message: trustLine(s.trust) })
        }
        if (s.sandbox.mode !== "sandbox") problems.push({ code: "sandbox-unavailable", message: s.sandbox.line.replace(/^sandbox: /, "The OS sandbox is ") })
        if (!s.enabled) problems.push({ code: "memory-off", message: `${offReason("memory", s.switches.memory).replace(/^p/, "P")}; pm on${s.switches.memory.from === "project" ? " --project" : ""} turns it on.` })
        if (s.stateSource === "corrupt" || s.stateSource === "unreadable") problems.push({ code: "state-unreadable", message: `${s.location.memoryRootDir}/state.json cannot be read; the next write replaces it.` })
        for (const l of s.locks) {
          if (l.judgement === "stale") {
            problems.push({ code: "lock-stale", message: `${l.name}: held by ${l.holder}, which is gone; the next task takes it over at once, or remove ${l.path}.` })
          }
          if (l.judgement === "holder-alive") {
            problems.push({ code: "lock-overdue", message: `${l.name}: held by ${l.holder}, past its timeout and still alive; it is never taken from a live process. Stop that process (kill ${l.pid}) to free it, or, if it is not one of ours, remove ${l.path}.` })
          }
          if (l.judgement === "unreadable") problems.push({ code: "lock-unreadable", message: `${l.path}: ${l.holder}.` })
        }
        if (s.queue.damaged > 0) {
          problems.push({ code: "queue-damaged", message: `${s.queue.damaged} queue record${s.queue.damaged === 1 ? " is" : "s are"} not readable as extraction jobs and were set aside in ${s.location.memoryRootDir}/queue/damaged/; look at them, then remove them.` })
        }
        if (s.queue.count > 0 && s.queue.blockedBy !== null) {
          problems.push({ code: "queue-waiting", message: `${s.queue.count} queued extraction${s.queue.count === 1 ? "" : "s"} cannot run: ${s.queue.blockedBy}.` })
        }
        for (const o of s.open) if (o.interrupted) problems.push({ code: "change-interrupted", message: `${openLine(o)} (pm undo does it now).` })
        for (const sk of s.skipped) problems.push({ code: "topic-skipped", message: `${sk.filename}: ${sk.reason}` })
        if (s.index.truncated) problems.push({ code: "index-truncated", message: "MEMORY.md is over 200 lines or 25,000 characters: only its start is loaded." })
        const lints = yield* (yield* MemoryStore).lint(s.location.memoryDir)
        // A lint message names its file itself; the name is added only to one that does not.
        for (const l of lints) for (const p of l.problems) problems.push({ code: p.code, message: p.message.startsWith(l.file) ? p.message : `${l.file}: ${p.message}` })
        if (problems.length > 0) yield* setExit(EXIT_PROBLEMS)
        if (json) return yield* printJson({ ok: problems.length === 0, problems, status: s })
        if (problems.length === 0) yield* printLine(`No problems found in ${s.location.memoryDir}.`)
        for (const p of problems) yield* printLine(`${p.code}: ${p.message}`)
        yield* printLine(`Versions: node ${s.versions.node}, pi ${s.versions.pi ?? "not found"}`)
      })
    ),
    Effect.catchAll((e) => fail(e.message))
  )
