/**
 * What a person is told about the background tasks of a session: a configured model Pi does not know (once, at
 * session start), a failure when it starts and when it ends (not while it keeps failing), and every save with the
 * files it changed. A run asked for by hand reports itself, so it only moves the failure state. Notices go through
 * the host's notification (one stderr line in print mode); a stale host tells nothing.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { BackgroundConfig } from "../../src/background/config.ts"
import { configuredFailure, type FailureState, failureNotice, working } from "../../src/background/failureNotice.ts"
import type { BackgroundKind, RunRecord } from "../../src/background/runs.ts"
import { Host } from "../session/Host.ts"
import { ModelRegistry } from "../model/ModelRegistry.ts"
import { savedNotice } from "./runRecords.ts"
import { heldFiles, heldNotice } from "../../src/background/runs.ts"
import { safe } from "./sessionState.ts"

export const makeSessionNotices = Effect.gen(function*() {
  const host = yield* Host
  const registry = yield* ModelRegistry
  /** Per kind: whether its failure was told (said once, and once when it works again), for the process's sessions. */
  const failures = yield* Ref.make<Record<BackgroundKind, FailureState>>({ extract: working, dream: working })

  /** A notification in the UI; in print mode the host writes it as one line on stderr. */
  const tell = (level: "warning" | "info", text: string) => safe(host.notify(text, level), undefined)

  /**
   * A configured model Pi does not know is a configuration problem, told once at session start (and by `pm doctor`);
   * the extraction's and the dream's failures it then causes are not told again.
   */
  const reportedModels = new Set<string>()
  const checkConfiguredModels = (selectorModel: string | undefined, background: BackgroundConfig) =>
    Effect.forEach(
      [
        { key: "extractor.model", value: background.extractor.model, kind: "extract" as const },
        { key: "dream.model", value: background.dream.model, kind: "dream" as const },
        { key: "selector.model", value: selectorModel, kind: undefined }
      ],
      ({ key, value, kind }) =>
        value === undefined
          ? Effect.void
          : registry.resolve(value).pipe(
            Effect.matchEffect({
              onSuccess: () => Effect.void,
              onFailure: (e) =>
                Effect.gen(function*() {
                  if (kind !== undefined) yield* Ref.update(failures, (f) => ({ ...f, [kind]: configuredFailure(Date.now()) }))
                  if (reportedModels.has(`${key}=${value}`)) return
                  reportedModels.add(`${key}=${value}`)
                  yield* tell("warning", `Project memory: config.json ${key} "${value}" is not usable: ${e.message}. ${kind === undefined ? "Recall" : kind === "extract" ? "Extraction" : "The dream"} fails until it is fixed (pm doctor checks it).`)
                })
            })
          ),
      { discard: true }
    )

  /**
   * After a run is saved: tells when a failure starts or ends, and names the files a save changed. `memoryDirs`: the
   * memory directory as the task saw it, so that a notice names files by their names in it.
   */
  const afterSave = (record: RunRecord, memoryDirs: ReadonlyArray<string> = []) =>
    Effect.gen(function*() {
      const told = yield* Ref.modify(failures, (f) => {
        const { state, notice } = failureNotice(f[record.kind], record, memoryDirs)
        return [notice, { ...f, [record.kind]: state }] as const
      })
      if (told !== undefined && record.trigger !== "manual") yield* tell(told.level, told.text)
      // Every save is announced, naming the files (a run asked for by hand reports them itself).
      if (record.filesChanged.length > 0 && record.trigger !== "manual") yield* tell("info", savedNotice(record))
      // Writes held for review wait for the person: said at once, whoever asked for the run.
      const held = heldFiles(record.unsaved ?? [])
      if (held.length > 0) yield* tell("info", heldNotice(record.kind, held))
    })

  return { tell, checkConfiguredModels, afterSave }
})

export type SessionNotices = Effect.Effect.Success<typeof makeSessionNotices>
