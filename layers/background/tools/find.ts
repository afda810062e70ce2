/**
 * The background `find`: Pi's own find tool over Node's glob instead of `fd`, behind the protected-path check on the
 * searched folder, and with every credential store left out of what it lists. `node_modules` and `.git` are skipped
 * as fd skips them. It only lists names; it opens no file.
 */
import { existsSync } from "node:fs"
import { glob } from "node:fs/promises"
import { resolve } from "node:path"
import type { ToolContext } from "./toolContext.ts"
import { type ToolBody, viaPi } from "./taskTool.ts"

/** fd matches a pattern without a slash against file names anywhere below the search folder. */
const globPattern = (pattern: string): string => (pattern.includes("/") ? pattern : `**/${pattern}`)

/** fd's walk over Node's glob: names matching `pattern` below `cwd`, the hidden ones left out, until `signal` fires. */
export const nodeGlob = async (
  pattern: string,
  cwd: string,
  options: { ignore: Array<string>; limit: number },
  hidden: (absolutePath: string) => Promise<boolean>,
  signal: AbortSignal
): Promise<Array<string>> => {
  const found: Array<string> = []
  const skip = (p: string) => /(^|\/)(node_modules|\.git)(\/|$)/.test(p)
  // The walk runs in Pi's own process: it stops when the call is stopped (its time limit, an abort), and leaving the
  // loop closes the walk.
  for await (const entry of glob(globPattern(pattern), { cwd, exclude: skip })) {
    if (signal.aborted) throw new Error("Operation aborted")
    if (skip(entry)) continue
    if (await hidden(resolve(cwd, entry))) continue
    found.push(resolve(cwd, entry))
    if (found.length >= options.limit) break
  }
  return found
}

export const makeFindTool = ({ pi, cwd, paths }: ToolContext) => {
  /** Pi's find over our glob, for one call: the walk knows the call's signal (Pi's operations are not given it). */
  const definitionFor = (signal: AbortSignal) =>
    pi.createFindToolDefinition(cwd, {
      operations: {
        exists: existsSync,
        glob: (pattern, searchCwd, o) => nodeGlob(pattern, searchCwd, o, async (p) => (await paths.guardPath(p)) !== undefined, signal)
      }
    })
  const definition = definitionFor(new AbortController().signal)
  const execute: ToolBody = async (id, args, signal) =>
    (await paths.refusePath(args["path"])) ?? viaPi(definitionFor(signal))(id, args, signal)
  return { definition, execute }
}
