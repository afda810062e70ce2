/**
 * The bash parser's two wasm files: their names, where they are found, and the error when either cannot be loaded.
 *
 * Shared by BashGuard (its layers' error type) and BashParser (which loads the files); it loads nothing itself, so
 * importing it brings in neither tree-sitter nor its wasm.
 */
import * as Data from "effect/Data"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

export class BashParserLoadError extends Data.TaggedError("BashParserLoadError")<{
  /** Which file failed: the tree-sitter runtime or the bash grammar. */
  readonly file: string
  readonly detail: string
}> {
  override get message(): string {
    return `cannot load the bash parser (${this.file}): ${this.detail}`
  }
}

export const RUNTIME_WASM = "web-tree-sitter.wasm"
export const GRAMMAR_WASM = "tree-sitter-bash.wasm"

/**
 * Where a wasm file is: beside the running module first (the bundle in dist/ ships both files next to itself), then
 * in node_modules (running from source under vitest or `node bench/...`).
 */
export const locateWasm = (file: string, moduleUrl: string = import.meta.url): string | undefined => {
  const candidates: Array<() => string> = [
    () => fileURLToPath(new URL(`./${file}`, moduleUrl)),
    () => createRequire(moduleUrl).resolve(file === RUNTIME_WASM ? `web-tree-sitter/${file}` : `tree-sitter-bash/${file}`)
  ]
  for (const candidate of candidates) {
    try {
      const path = candidate()
      if (existsSync(path)) return path
    } catch {
      // not resolvable from here: try the next place
    }
  }
  return undefined
}
