/**
 * The background `grep`: Pi's own grep (or the sandboxed rg of ./sandboxed.ts, when there is a sandbox) behind the
 * protected-path check on the searched path, stopped after GREP_TIMEOUT_MS. A search over a folder may pass through
 * credential stores: their lines are dropped from the output, and the model is told how many were.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { stat } from "node:fs/promises"
import { homedir } from "node:os"
import { resolve } from "node:path"
import { resolveToolPath } from "../../../src/safety/toolPath.ts"
import type { SandboxedTools } from "./sandboxed.ts"
import type { ToolContext } from "./toolContext.ts"
import { errorResult, type ToolBody, type ToolResult, viaPi } from "./taskTool.ts"

export const GREP_TIMEOUT_MS = 20_000

/** The file named by one line of Pi's grep output (`path:N: text`, or `path-N- text` for context), every reading of it. */
const grepLinePaths = (line: string): Array<string> => {
  const paths: Array<string> = []
  for (const m of line.matchAll(/(?::(\d+): |-(\d+)- )/g)) paths.push(line.slice(0, m.index))
  return paths
}

/** `sandboxed` names the sandboxed rg once the task's sandbox is set up (after this tool's definition is made). */
export const makeGrepTool = ({ pi, cwd, runtime, paths }: ToolContext, sandboxed: () => SandboxedTools) => {
  const definition = pi.createGrepToolDefinition(cwd)

  const grepUnfiltered: ToolBody = async (id, args, signal) => {
    const controller = new AbortController()
    const onAbort = () => controller.abort()
    signal.addEventListener("abort", onAbort, { once: true })
    try {
      const outcome = await runtime.runEffect(
        Effect.tryPromise(() => sandboxed().grep?.(args, controller.signal) ?? viaPi(definition)(id, args, controller.signal)).pipe(
          Effect.timeoutOption(Duration.millis(GREP_TIMEOUT_MS)),
          Effect.either
        )
      )
      if (outcome._tag === "Left") throw outcome.left.error
      if (Option.isNone(outcome.right)) {
        controller.abort()
        return errorResult(`grep took longer than ${GREP_TIMEOUT_MS / 1000} s and was stopped; narrow the pattern or the path.`)
      }
      return outcome.right.value
    } finally {
      signal.removeEventListener("abort", onAbort)
    }
  }

  const execute: ToolBody = async (id, args, signal) => {
    const refused = await paths.refusePath(args["path"])
    if (refused !== undefined) return refused
    const searched = resolveToolPath(typeof args["path"] === "string" && args["path"] !== "" ? args["path"] : ".", cwd, homedir())!
    const searchedIsDir = await stat(searched).then((s) => s.isDirectory(), () => false)
    const result = await grepUnfiltered(id, args, signal)
    if (result.isError === true || !searchedIsDir) return result
    const verdicts = new Map<string, boolean>()
    const hides = async (line: string): Promise<boolean> => {
      for (const path of grepLinePaths(line)) {
        let hidden = verdicts.get(path)
        if (hidden === undefined) {
          hidden = (await paths.guardPath(resolve(searched, path))) !== undefined
          verdicts.set(path, hidden)
        }
        if (hidden) return true
      }
      return false
    }
    const content: Array<ToolResult["content"][number]> = []
    let dropped = 0
    for (const c of result.content) {
      if (c.type !== "text") {
        content.push(c)
        continue
      }
      const kept: Array<string> = []
      for (const line of c.text.split("\n")) {
        if (await hides(line)) dropped++
        else kept.push(line)
      }
      content.push({ ...c, text: kept.join("\n") })
    }
    if (dropped === 0) return result
    content.push({ type: "text", text: `\n[${dropped} line(s) from protected credential files were left out]` })
    return { ...result, content }
  }
  return { definition, execute }
}
