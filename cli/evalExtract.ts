/**
 * `pm eval extract`'s runs: each conversation of the set through the product's own Extractor
 * (layers/background/Extractor.ts, its six tools and its prompts), made in the extension's own graph
 * (layers/app/ExtensionApp.ts) over a temporary agent directory, so every case starts from an empty memory folder of
 * its own and nothing reaches the user's memory. The model is the one given (Pi's model runtime over the user's own
 * agent directory, as `pm recall` has it). A conversation becomes session entries as Pi records them: the user's
 * words, the assistant's, and each tool call with its result (a file it read is also written into the case's
 * project folder). What the extraction saved is read back and scored (src/eval/scores.ts).
 */
import type { Api, AssistantMessage, Message, Model, Usage } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import type { BranchEntry } from "../src/background/cursor.ts"
import type { ExtractCase, Turn } from "../src/eval/extractSet.ts"
import type { ExtractResult, SavedFile } from "../src/eval/scores.ts"
import { INDEX_FILE } from "../src/storage/layout.ts"
import { addUsage, type UsageTotals, zeroUsage } from "../src/model/usage.ts"
import { extensionLayer } from "../layers/app/ExtensionApp.ts"
import { Extractor } from "../layers/background/Extractor.ts"
import { PiToolkit } from "../layers/background/PiToolkit.ts"
import { ModelRegistry, type ModelRegistryShape } from "../layers/model/ModelRegistry.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { Host, type HostShape } from "../layers/session/Host.ts"
import type { BackgroundTaskConfig } from "../src/background/config.ts"
import { importPiHost } from "./piHost.ts"

/** The session pm stands in for: the case's project folder, no branch of its own, trusted, silent. */
const evalHost = (cwd: string): HostShape => ({
  cwd: Effect.succeed(cwd),
  sessionId: Effect.succeed("pm-eval"),
  isTrusted: Effect.succeed(true),
  isIdle: Effect.succeed(true),
  branch: Effect.succeed([]),
  entries: Effect.succeed([]),
  notify: () => Effect.void,
  appendEntry: () => Effect.void,
  sendHidden: () => Effect.void
})

const noUsage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

/** A conversation as the session entries Pi would have recorded, the assistant's turns as from `model`. */
export const entriesOf = (turns: ReadonlyArray<Turn>, model: Model<Api>): ReadonlyArray<BranchEntry> => {
  const entries: Array<BranchEntry> = []
  const add = (message: Message) => entries.push({ type: "message", id: `e${entries.length + 1}`, message } as BranchEntry)
  const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage => ({
    role: "assistant", content, api: model.api, provider: model.provider, model: model.id, usage: noUsage, stopReason, timestamp: entries.length
  })
  for (const turn of turns) {
    if ("user" in turn) add({ role: "user", content: turn.user, timestamp: entries.length })
    else if ("assistant" in turn) add(assistant([{ type: "text", text: turn.assistant }], "stop"))
    else {
      const id = `call-${entries.length + 1}`
      add(assistant([{ type: "toolCall", id, name: turn.tool, arguments: { ...turn.input } }], "toolUse"))
      add({ role: "toolResult", toolCallId: id, toolName: turn.tool, content: [{ type: "text", text: turn.output }], isError: false, timestamp: entries.length })
    }
  }
  return entries
}

/** Every topic file under `dir` (MEMORY.md aside), with its text. */
const savedFiles = (dir: string): ReadonlyArray<SavedFile> => {
  const out: Array<SavedFile> = []
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith(".md") && path !== join(dir, INDEX_FILE)) out.push({ name: relative(dir, path), text: readFileSync(path, "utf8") })
    }
  }
  walk(dir)
  return out
}

export interface ExtractRun {
  readonly results: ReadonlyArray<ExtractResult>
  readonly usage: UsageTotals
}

export interface ExtractRunOptions {
  readonly cases: ReadonlyArray<ExtractCase>
  readonly registry: ModelRegistryShape
  readonly model: Model<Api>
  /** Where the temporary agent directory and the cases' project folders go. */
  readonly workDir: string
  readonly settings: BackgroundTaskConfig
  readonly onCase?: (done: number, all: number) => Effect.Effect<void>
}

/** Runs every case in turn through the real extractor, each in a project of its own; never touches the user's memory. */
export const runExtractCases = (o: ExtractRunOptions) =>
  Effect.gen(function* () {
    const pi = yield* Effect.tryPromise({ try: () => importPiHost(), catch: (e) => ({ message: e instanceof Error ? e.message : String(e) }) })
    const layer = extensionLayer(
      {
        host: Layer.succeed(Host, evalHost(o.workDir)),
        models: Layer.succeed(ModelRegistry, o.registry),
        toolkit: PiToolkit.layer(pi),
        holderKind: "pm eval"
      },
      { agentDir: join(o.workDir, "agent") }
    )
    return yield* Effect.gen(function* () {
      const extractor = yield* Extractor
      const locator = yield* ProjectLocator
      const results: Array<ExtractResult> = []
      let usage = zeroUsage
      for (const c of o.cases) {
        const cwd = join(o.workDir, "projects", c.id)
        mkdirSync(cwd, { recursive: true })
        for (const t of c.turns) {
          if ("tool" in t && t.tool === "read" && t.input["path"] !== undefined) {
            const file = join(cwd, t.input["path"])
            mkdirSync(dirname(file), { recursive: true })
            writeFileSync(file, t.output)
          }
        }
        const location = yield* locator.locate(cwd)
        const outcome = yield* extractor.extract({
          location,
          cwd,
          branch: entriesOf(c.turns, o.model),
          cursor: undefined,
          parent: undefined,
          model: o.model,
          taskSessionId: `pm-eval-${c.id}`,
          sessionId: `pm-eval-${c.id}`,
          maxTurns: o.settings.maxTurns,
          maxTokens: o.settings.maxTokens,
          requestTimeoutMs: o.settings.requestTimeoutSeconds * 1000,
          isMemoryPath: () => false,
          check: Effect.void,
          onChange: () => Effect.void,
          onUsage: (u) => Effect.sync(() => void (usage = addUsage(usage, u))),
          lockWaitMs: 0
        }).pipe(Effect.either)
        const failure = outcome._tag === "Left"
          ? outcome.left.message || outcome.left._tag
          : outcome.right.status === "skipped"
          ? `skipped (${outcome.right.reason})`
          : outcome.right.status === "busy"
          ? `memory was busy (${outcome.right.holder})`
          : outcome.right.stop === "done" ? undefined : `stopped: ${outcome.right.stop}${outcome.right.errorMessage === undefined ? "" : ` (${outcome.right.errorMessage})`}`
        results.push({ id: c.id, expect: c.expect, forbid: c.forbid, saved: savedFiles(location.memoryDir), ...(failure === undefined ? {} : { failure }) })
        if (o.onCase !== undefined) yield* o.onCase(results.length, o.cases.length)
      }
      return { results, usage } satisfies ExtractRun
    }).pipe(Effect.provide(layer), Effect.scoped)
  })
