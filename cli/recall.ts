/** The handler of `pm recall` (its command line is in cli/commandLine.ts). */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { sha256Hex24 } from "../src/project/projectKey.ts"
import { emptyRecallState } from "../src/recall/recallState.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { MemoryStore } from "../layers/memory/MemoryStore.ts"
import { ModelRegistry } from "../layers/model/ModelRegistry.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { passesWhitespaceThreshold, Recall } from "../layers/recall/Recall.ts"
import type { Parsed, recallOptions } from "./commandOptions.ts"
import { memoryDirOf, orFail } from "./locate.ts"
import { EXIT_PROBLEMS, fail, printJson, printLine, setExit } from "./output.ts"

export const recall = ({ cwd, json, memoryDir, model, select, query }: Parsed<typeof recallOptions>) =>
  orFail(
    Effect.gen(function* () {
      const config = yield* ConfigService
      const dir = yield* memoryDirOf(cwd, memoryDir)
      // The project whose files the memories cite, located without writing (its cited files are checked against it).
      const project = yield* (yield* ProjectLocator).inspect(resolve(cwd)).pipe(Effect.option)
      const modelFlag = Option.getOrUndefined(model)
      const { config: cfg } = yield* config.load
      const request = {
        memoryDir: dir,
        query,
        state: emptyRecallState,
        modelRef: modelFlag ?? cfg.selector.model,
        sessionId: `pm-cli-${sha256Hex24(dir)}`,
        nowMs: Date.now(),
        ...(Option.isSome(project) ? { projectRoot: project.value.projectRoot } : {}),
        ...(select.length > 0 ? { select } : {})
      }
      if (select.length === 0 && !passesWhitespaceThreshold(query)) {
        // The selector never runs for such text; say so rather than load a model for nothing.
        yield* Effect.sync(() => process.stderr.write("pm: note: the selector runs only for text with a space inside it; nothing to recall\n"))
        const none = { selected: [], injection: "", budgetUsed: 0 }
        return yield* json ? printJson(none) : printLine("(nothing to inject)")
      }
      if (select.length > 0) {
        const known = new Set((yield* (yield* MemoryStore).scanTopics(dir)).topics.map((t) => t.filename))
        const unknown = select.filter((f) => !known.has(f))
        if (unknown.length > 0) return yield* fail(`not a topic in ${dir}: ${unknown.join(", ")}`)
      }
      // pi's model runtime is loaded only when the selector is really asked (never for --select). A model that
      // cannot be resolved is an error of the command (exit 2, D9), not a finding: it is checked before recall,
      // whose selector would only turn it into a warning (the right thing inside Pi, not here).
      if (select.length === 0) yield* (yield* ModelRegistry).resolve(request.modelRef)
      const outcome = yield* (yield* Recall).recall(request)
      for (const w of outcome.warnings) yield* Effect.sync(() => process.stderr.write(`pm: warning: ${w}\n`))
      if (outcome.warnings.length > 0) yield* setExit(EXIT_PROBLEMS)
      const out = { selected: outcome.selected, injection: outcome.injection, budgetUsed: outcome.budgetUsed }
      if (json) return yield* printJson(out)
      yield* printLine(out.injection === "" ? "(nothing to inject)" : out.injection)
      yield* printLine()
      yield* printLine(`Selected: ${out.selected.join(", ") || "none"}; budget used: ${out.budgetUsed} units`)
    })
  )
