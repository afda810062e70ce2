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

const nodeGlob = async (
  pattern: string,
  cwd: string,
  options: { ignore: Array<string>; limit: number },
  hidden: (absolutePath: string) => Promise<boolean> = async () => false
): Promise<Array<string>> => {
  const found: Array<string> = []
  const skip = (p: string) => /(^|\/)(node_modules|\.git)(\/|$)/.test(p)
  for await (const entry of glob(globPattern(pattern), { cwd, exclude: skip })) {
    if (skip(entry)) continue
    if (await hidden(resolve(cwd, entry))) continue
    found.push(resolve(cwd, entry))
    if (found.length >= options.limit) break
  }
  return found
}

export const makeFindTool = ({ pi, cwd, paths }: ToolContext) => {
  const definition = pi.createFindToolDefinition(cwd, {
    operations: {
      exists: existsSync,
      glob: (pattern, searchCwd, o) => nodeGlob(pattern, searchCwd, o, async (p) => (await paths.guardPath(p)) !== undefined)
    }
  })
  const execute: ToolBody = async (id, args, signal) =>
    (await paths.refusePath(args["path"])) ?? viaPi(definition)(id, args, signal)
  return { definition, execute }
}
