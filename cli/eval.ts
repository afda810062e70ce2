/**
 * The handlers of `pm eval`, `pm eval recall` and `pm eval extract` (their command line is in cli/commandLine.ts):
 * memory quality measured against a model Pi knows, with the product's own recall (cli/evalRecall.ts) and extractor
 * (cli/evalExtract.ts) on the set shipped in src/eval/, or, for recall, a set of one's own (`--set DIR`). The model is
 * `--model`, else the part's model in config.json (`selector.model`, `extractor.model`), else the one Pi starts
 * with, through Pi's model runtime as `pm recall` has it. Nothing is written to the user's memory: the shipped
 * folders and every extraction live in a temporary folder, removed at the end.
 *
 * Output: the figures as a short table, or JSON with `--json` (src/eval/report.ts). Exit 0 when every request gave
 * a usable answer, 1 when some did not (the figures count those as nothing selected or saved), 2 when the command
 * could not run (bad set input, no model).
 */
import type { Api, Model } from "@earendil-works/pi-ai"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join, resolve } from "node:path"
import { decodeBackgroundConfig, defaultBackgroundConfig } from "../src/background/config.ts"
import { EXTRACT_CASES } from "../src/eval/extractSet.ts"
import { shippedRecallFolders } from "../src/eval/recallSetGrown.ts"
import { extractJson, extractLines, RECALL_HEADER, recallJson, recallRows, usageFigures, usageLine } from "../src/eval/report.ts"
import { type RecallCase, scoreExtraction, scoreRecall } from "../src/eval/scores.ts"
import type { UsageTotals } from "../src/model/usage.ts"
import { ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import type { evalOptions, evalRecallOptions, Parsed } from "./commandOptions.ts"
import { orFail } from "./locate.ts"
import { EXIT_PROBLEMS, printJson, printLine, setExit, table } from "./output.ts"

type Part = "recall" | "extract"

interface EvalRequest {
  readonly cwd: string
  readonly json: boolean
  readonly model: Option.Option<string>
  readonly set: Option.Option<string>
  readonly parts: ReadonlyArray<Part>
}

const minus = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  requests: a.requests - b.requests,
  input: a.input - b.input,
  output: a.output - b.output,
  cacheRead: a.cacheRead - b.cacheRead,
  cacheWrite: a.cacheWrite - b.cacheWrite,
  cost: a.cost - b.cost
})

/** Whether Pi's model table prices the model: without prices, every cost it reports is 0 and means "not known". */
const priced = (m: Model<Api>): boolean => (m.cost?.input ?? 0) > 0 || (m.cost?.output ?? 0) > 0

const nameOf = (m: Model<Api>) => `${m.provider}/${m.id}`

/** One progress line on a terminal's stderr, rewritten in place; nothing when stderr is not a terminal. */
const progress = (text: string | undefined) =>
  Effect.sync(() => {
    if (process.stderr.isTTY !== true) return
    process.stderr.write(text === undefined ? "\r\u001b[K" : `\r\u001b[K${text}`)
  })

const run = (r: EvalRequest) =>
  Effect.gen(function* () {
    const config = yield* ConfigService
    const { config: cfg } = yield* config.load
    const flag = Option.getOrUndefined(r.model)
    const [{ piModelRegistry }, { recallLayer }, { readOwnSet, runRecallFolder, writeRecallFolder }] = yield* Effect.promise(() =>
      Promise.all([import("./PiModelRuntime.ts"), import("../layers/app/App.ts"), import("./evalRecall.ts")])
    )
    // A set of one's own is checked before any model is loaded or asked.
    const own = Option.isSome(r.set) ? yield* readOwnSet(resolve(r.set.value)) : undefined
    const work = mkdtempSync(join(tmpdir(), "pm-eval-"))
    const body = Effect.gen(function* () {
      const registry = yield* ModelRegistry
      const report: Record<string, unknown> = {}
      const lines: Array<string> = []
      let failures = 0
      if (r.parts.includes("recall")) {
        const model = yield* registry.resolve(flag ?? cfg.selector.model)
        const folders: ReadonlyArray<{ readonly name: string; readonly memoryDir: string; readonly cases: ReadonlyArray<RecallCase> }> = own !== undefined
          ? [{ name: basename(resolve(r.set.pipe(Option.getOrElse(() => ".")))), memoryDir: own.memoryDir, cases: own.cases }]
          : shippedRecallFolders().map((f, i) => {
            const memoryDir = join(work, "recall", String(i), "memory")
            writeRecallFolder(memoryDir, f, Date.now())
            return { name: f.name, memoryDir, cases: f.prompts }
          })
        const before = yield* registry.totals
        const runs = yield* Effect.forEach(folders, (f) =>
          runRecallFolder(f.name, f.memoryDir, f.cases, nameOf(model), (done, all) => progress(`Recall over ${f.name}: ${done} of ${all} prompts`))
        ).pipe(Effect.provide(recallLayer))
        yield* progress(undefined)
        const usage = usageFigures(minus(yield* registry.totals, before), priced(model))
        const all = scoreRecall(runs.flatMap((x) => x.results))
        failures += all.failures
        report["recall"] = recallJson(nameOf(model), runs, all, usage)
        lines.push(`Recall, with ${nameOf(model)}${own === undefined ? " on the shipped set" : ` on ${own.memoryDir}`}:`, "")
        lines.push(table([...RECALL_HEADER], recallRows(runs, all)), "", usageLine(usage))
      }
      if (r.parts.includes("extract")) {
        // The extractor's settings as a session would read them (a missing or unreadable file: the defaults).
        const background = yield* (yield* FileSystem).readRegularFile(config.configPath, 1 << 20).pipe(
          Effect.map((read) => decodeBackgroundConfig(config.configPath, Buffer.from(read.bytes).toString("utf8")).config),
          Effect.orElseSucceed(() => defaultBackgroundConfig)
        )
        const model = yield* registry.resolve(flag ?? background.extractor.model)
        const { runExtractCases } = yield* Effect.promise(() => import("./evalExtract.ts"))
        const result = yield* runExtractCases({
          cases: EXTRACT_CASES,
          registry,
          model,
          workDir: join(work, "extract"),
          settings: background.extractor,
          onCase: (done, all) => progress(`Extraction: ${done} of ${all} conversations`)
        })
        yield* progress(undefined)
        const scores = scoreExtraction(result.results)
        const usage = usageFigures(result.usage, priced(model))
        failures += scores.failures
        report["extract"] = extractJson(nameOf(model), scores, usage)
        if (lines.length > 0) lines.push("")
        lines.push(`Extraction, with ${nameOf(model)} on the shipped conversations:`, "", ...extractLines(scores), "", usageLine(usage))
      }
      if (failures > 0) {
        yield* setExit(EXIT_PROBLEMS)
        lines.push("", `${failures} request${failures === 1 ? "" : "s"} gave no usable answer; the figures count ${failures === 1 ? "it" : "them"} as nothing selected or saved.`)
      }
      if (r.json) return yield* printJson(r.parts.length === 1 ? report[r.parts[0]!] : report)
      for (const line of lines) yield* printLine(line)
    })
    return yield* body.pipe(
      Effect.provide(piModelRegistry(r.cwd)),
      Effect.ensuring(Effect.sync(() => rmSync(work, { recursive: true, force: true })))
    )
  })

export const evalRecall = (o: Parsed<typeof evalRecallOptions>) => orFail(run({ ...o, parts: ["recall"] }))
export const evalExtract = (o: Parsed<typeof evalOptions>) => orFail(run({ ...o, set: Option.none(), parts: ["extract"] }))
export const evalBoth = (o: Parsed<typeof evalOptions>) => orFail(run({ ...o, set: Option.none(), parts: ["recall", "extract"] }))
