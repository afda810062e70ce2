/**
 * The delete path of the background `bash`: a delete verdict of the BashGuard carried out file by file through the
 * writer's safe delete (runDelete in layers/safety/BashGuard.ts), under the dream's delete cap when it is on (with
 * the number of topics at the start of the task, deletes beyond `deleteLimit` of them are refused with a reason).
 * Only files really removed are changes: `rm -f` of a missing file succeeds without one.
 */
import * as Effect from "effect/Effect"
import { stat } from "node:fs/promises"
import { resolve } from "node:path"
import type { DeleteVerdict } from "../../../src/safety/bash/verdict.ts"
import { deleteAllowed, deleteCapReason, deleteLimit } from "../../../src/writes/deleteCap.ts"
import { runDelete } from "../../safety/BashGuard.ts"
import { memoryLabel } from "./protection.ts"
import type { ToolContext } from "./toolContext.ts"
import { errorResult, textResult, type ToolResult } from "./taskTool.ts"

export interface DeleteCapStatus {
  readonly topics: number
  readonly limit: number
  readonly deleted: number
  /** Files whose delete was refused by the cap. */
  readonly refused: ReadonlyArray<string>
}

export interface DeletePath {
  /** Carries out a delete verdict; the result is what `rm` would have told the model. */
  readonly execute: (verdict: DeleteVerdict) => Promise<ToolResult>
  /** The delete cap's figures so far (undefined when the cap is off). */
  readonly status: () => DeleteCapStatus | undefined
}

export const makeDeletePath = (
  { cwd, memoryDir, writer, runtime, changed }: ToolContext,
  deleteCap: { readonly topics: number } | undefined
): DeletePath => {
  let capDeleted = 0
  const capRefused: Array<string> = []
  /** A delete under the cap: refused past the line, counted when a file really went. */
  const cappedRemove = async (absolutePath: string, remove: () => Promise<{ readonly removed: boolean; readonly path: string }>) => {
    const cap = deleteCap
    if (cap === undefined) return remove()
    const exists = await stat(absolutePath).then(() => true, () => false)
    if (exists && !deleteAllowed(capDeleted + 1, cap.topics)) {
      const file = memoryLabel(memoryDir, absolutePath)
      capRefused.push(file)
      throw new Error(deleteCapReason(file, capDeleted, cap.topics))
    }
    const result = await remove()
    if (result.removed) capDeleted++
    return result
  }
  return {
    execute: async (verdict) => {
      // Only files really removed are changes: `rm -f` of a missing file succeeds without one.
      const gone: Array<string> = []
      const outcome = await runtime.runEffect(
        runDelete(
          verdict,
          (path, o) =>
            Effect.tryPromise({
              try: () =>
                cappedRemove(resolve(cwd, path), () => runtime.run(writer.remove(path, o))),
              catch: (e) => (e instanceof Error ? e : new Error(String(e)))
            }).pipe(Effect.tap((r) => Effect.sync(() => void (r.removed && gone.push(r.path))))),
          (e) => e.message
        )
      )
      for (const path of gone) await changed({ op: "delete", path })
      const text = outcome.output === "" ? `Removed ${gone.length} file(s).` : outcome.output.trimEnd()
      return outcome.exitCode === 0 ? textResult(text) : errorResult(`${text}\n\nCommand exited with code ${outcome.exitCode}`)
    },
    status: () =>
      deleteCap === undefined
        ? undefined
        : { topics: deleteCap.topics, limit: deleteLimit(deleteCap.topics), deleted: capDeleted, refused: [...capRefused] }
  }
}
