/**
 * Staleness by content, the I/O half for symbols and scripts (the rules: src/recall/citedSymbols.ts). For the memories
 * one recall injects, together:
 * - their cited symbols (at most RECALL_CITED_SYMBOLS_MAX per memory and RECALL_SYMBOL_CHECKS_MAX per recall, the
 *   first ones in selection order) are each looked for by one `git grep -q -F -w` in the project root, all at once,
 *   each bounded by RECALL_SYMBOL_CHECK_MS. The files searched are the working tree's tracked files as they are now
 *   (an uncommitted removal counts) and its untracked files that are not ignored (a new file not yet added counts;
 *   build output and dependencies, when ignored, do not); binary files and submodules are not searched. A symbol is
 *   "absent" only on git's plain "no match": outside git, git missing, the time bound hit or any failure say nothing.
 * - their npm scripts are looked up in the root's package.json (read once, at most RECALL_PACKAGE_JSON_MAX_BYTES,
 *   only when its real path is inside the root). A script is "gone" when package.json parses to an object whose
 *   `scripts` lacks it. Nothing is said without a readable package.json, or in a workspace (a `workspaces` field or a
 *   pnpm-workspace.yaml), where a script may belong to one of its packages.
 * Cost follows the work: nothing runs for memories that cite no symbol or script.
 */
import * as Effect from "effect/Effect"
import { isAbsolute, join, relative, sep } from "node:path"
import {
  RECALL_CITED_SCRIPTS_MAX,
  RECALL_CITED_SYMBOLS_MAX,
  RECALL_PACKAGE_JSON_MAX_BYTES,
  RECALL_SYMBOL_CHECK_MS,
  RECALL_SYMBOL_CHECKS_MAX
} from "../../src/limits.ts"
import { citedScripts, citedSymbols } from "../../src/recall/citedSymbols.ts"
import { projectGitAnswers } from "../history/git.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"

/** What one memory's symbols and scripts came to. */
export interface SymbolCheck {
  readonly absent: ReadonlyArray<string>
  readonly scriptsGone: ReadonlyArray<string>
}

/** `git grep -q` prints nothing; this bounds what an odd git could print (its errors) before it is stopped. */
const GREP_MAX_OUTPUT_BYTES = 64 * 1024

/** The first RECALL_SYMBOL_CHECKS_MAX distinct symbols over all the memories, in order. */
export const symbolsToCheck = (perMemory: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const all: Array<string> = []
  for (const list of perMemory) for (const s of list) if (all.length < RECALL_SYMBOL_CHECKS_MAX && !all.includes(s)) all.push(s)
  return all
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

export const makeSymbolCheck = (fs: FileSystemShape) => {
  /** Whether the project's files hold `symbol` as a word: true, false, or undefined when git could not say. */
  const appears = (root: string, symbol: string) =>
    projectGitAnswers(root, ["grep", "-q", "-I", "-F", "-w", "--untracked", "-e", symbol, "--", "."], RECALL_SYMBOL_CHECK_MS, GREP_MAX_OUTPUT_BYTES)

  /** The root package.json's script names; undefined when it cannot be read, is not an object, or is a workspace's. */
  const scriptsOf = (root: string): Effect.Effect<ReadonlySet<string> | undefined> =>
    Effect.gen(function* () {
      const realRoot = yield* fs.realpath(root)
      const real = yield* fs.realpath(join(root, "package.json"))
      if (!inside(realRoot, real)) return undefined
      const read = yield* fs.readRegularFile(real, RECALL_PACKAGE_JSON_MAX_BYTES + 1)
      if (read.partial || read.bytes.length > RECALL_PACKAGE_JSON_MAX_BYTES) return undefined
      const json: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes))
      if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined
      if ("workspaces" in json) return undefined
      const pnpmWorkspace = yield* fs.stat(join(root, "pnpm-workspace.yaml")).pipe(Effect.either)
      if (pnpmWorkspace._tag === "Right" || pnpmWorkspace.left.reason !== "NotFound") return undefined
      const scripts = (json as { scripts?: unknown }).scripts
      if (typeof scripts !== "object" || scripts === null || Array.isArray(scripts)) return new Set<string>()
      return new Set(Object.keys(scripts))
    }).pipe(
      // Any failure (no file, a link out, bad JSON) says nothing about the scripts.
      Effect.catchAllDefect(() => Effect.succeed(undefined)),
      Effect.orElseSucceed(() => undefined)
    )

  /** For each memory text (in selection order), checked against the project at `root` now. */
  return Effect.fnUntraced(function* (root: string, texts: ReadonlyArray<string>) {
    const symbols = texts.map((t) => citedSymbols(t, RECALL_CITED_SYMBOLS_MAX))
    const scripts = texts.map((t) => citedScripts(t, RECALL_CITED_SCRIPTS_MAX))
    const checked = symbolsToCheck(symbols)
    const answers = yield* Effect.forEach(checked, (s) => appears(root, s), { concurrency: "unbounded" })
    const absent = new Set(checked.filter((_, i) => answers[i] === false))
    const known = scripts.some((l) => l.length > 0) ? yield* scriptsOf(root) : undefined
    return texts.map((_, i): SymbolCheck => ({
      absent: symbols[i]!.filter((s) => absent.has(s)),
      scriptsGone: known === undefined ? [] : scripts[i]!.filter((s) => !known.has(s))
    }))
  })
}
