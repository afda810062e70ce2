/**
 * Which files of dist/ a `pm` process loads, observed with Node's module hooks in the child (not by timing), and
 * which sources those files were built from (read from their source maps).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { repoRoot } from "./pm.ts"
import { tempDir } from "./tmp.ts"

/**
 * A preload that reports, at exit, which files of dist/ the process loaded and which of Node's own modules it
 * started (however they were taken: an import, `require`, `process.getBuiltinModule`); pass it as `NODE_OPTIONS`.
 */
export const recordLoadsOption = (): string => {
  const file = join(tempDir("pm-hooks-"), "record-loads.mjs")
  writeFileSync(
    file,
    [
      `import { registerHooks } from "node:module"`,
      `const loaded = []`,
      `registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) })`,
      `process.on("exit", () => process.stderr.write("LOADED " + JSON.stringify(loaded.filter((u) => u.includes("/dist/")).map((u) => u.replace(/.*\\/dist\\//, ""))) + "\\n" +`,
      `  "BUILTINS " + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13))) + "\\n"))`
    ].join("\n")
  )
  return `--import ${pathToFileURL(file).href}`
}

/** The dist/ files a process run with `recordLoadsOption` loaded, from its stderr. */
export const loadedBy = (stderr: string): ReadonlyArray<string> => JSON.parse(/^LOADED (.*)$/m.exec(stderr)?.[1] ?? "[]")

/** Node's own modules (`child_process`, `internal/...`) a process run with `recordLoadsOption` started, from its stderr. */
export const builtinsLoadedBy = (stderr: string): ReadonlyArray<string> => JSON.parse(/^BUILTINS (.*)$/m.exec(stderr)?.[1] ?? "[]")

/** The repository sources (`cli/...`, `layers/...`, `src/...`) the given dist/ files were built from. */
export const sourcesOf = (files: ReadonlyArray<string>): ReadonlySet<string> => {
  const sources = new Set<string>()
  for (const file of files) {
    const map = join(repoRoot, "dist", `${file}.map`)
    if (!existsSync(map)) continue
    for (const s of (JSON.parse(readFileSync(map, "utf8")) as { sources: ReadonlyArray<string> }).sources) {
      const own = /(?:^|\/)((?:cli|layers|src|extension)\/[^/].*)$/.exec(s.replace(/^(\.\.\/)+/, ""))
      if (own !== null && !s.includes("node_modules")) sources.add(own[1]!)
    }
  }
  return sources
}
