/**
 * The `protectedPaths` key of config.json (read by ConfigService through src/project/config.ts): the user's exact
 * exceptions and the extra protections of the user and of the project, merged. Pure.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as path from "node:path"

/**
 * `protectedPaths` in the user-level config.json: `allow` is exact paths (absolute or `~/...`) exempted from the
 * built-in rules; `add` is extra protections. A project's own configuration may carry only `add`.
 */
export const ProtectedPathsConfig = Schema.Struct({
  allow: Schema.optional(Schema.Array(Schema.String)),
  add: Schema.optional(Schema.Array(Schema.String))
})

export interface ProtectedPathsSettings {
  readonly exceptions: ReadonlyArray<string>
  readonly extraProtections: ReadonlyArray<string>
}

const expandTilde = (p: string, home: string): string => (p === "~" ? home : p.startsWith("~/") ? home + p.slice(1) : p)

/**
 * Merges the user-level value and a project-level value (each the raw JSON under `protectedPaths`, or undefined).
 * A project's `allow` is ignored and reported: a project may add protections, never remove them. Relative project
 * additions with a slash are taken from `projectRoot`.
 */
export const decodeProtectedPaths = (
  user: unknown,
  project: unknown,
  home: string,
  projectRoot: string
): { readonly settings: ProtectedPathsSettings; readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = []
  const decode = (label: string, raw: unknown) => {
    if (raw === undefined) return {}
    const r = Schema.decodeUnknownEither(ProtectedPathsConfig)(raw)
    if (Either.isRight(r)) return r.right
    problems.push(`${label} "protectedPaths" is invalid (${ParseResult.TreeFormatter.formatErrorSync(r.left).replace(/\s+/g, " ")}); ignored.`)
    return {}
  }
  const u = decode("user", user)
  const p = decode("project", project)
  const exceptions = (u.allow ?? [])
    .map((e) => expandTilde(e, home))
    .filter((e) => {
      if (e.startsWith("/")) return true
      problems.push(`user "protectedPaths.allow" entry ${JSON.stringify(e)} is not an absolute or ~/ path; ignored.`)
      return false
    })
  if (p.allow !== undefined && p.allow.length > 0) {
    problems.push(`project "protectedPaths.allow" is ignored: a project may add protections, never remove them.`)
  }
  const projectAdds = (p.add ?? []).map((e) => {
    const x = expandTilde(e, home)
    return x.startsWith("/") || !x.includes("/") ? x : path.posix.join(projectRoot, x)
  })
  const userAdds = (u.add ?? []).map((e) => expandTilde(e, home))
  return { settings: { exceptions, extraProtections: [...userAdds, ...projectAdds] }, problems }
}
