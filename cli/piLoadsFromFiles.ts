/**
 * Whether Pi loads project memory, read from Pi's files without loading Pi: the cases whose answer the files decide
 * alone, as Pi's package manager would resolve them (cli/piLoads.ts asks that manager for every other case). Decided
 * here:
 * - nothing that can add an extension: no `packages` and no `extensions` in the agent folder's settings.json, an
 *   empty or missing `extensions/` folder beside it, no `.pi/` folder in the project: Pi loads only its built-in
 *   extensions, none of them this package ("absent");
 * - `packages` naming npm packages only, each by name alone (no version, no filter object), with no `extensions`
 *   setting to switch any off: Pi loads each from `npm/node_modules/<name>` in the agent folder, so project memory is
 *   "loaded" when one of them is this package, installed there, with the extension file its manifest names, and
 *   "absent" when none is.
 * Anything else (a local path or git source, a version, a filter, override patterns, a project's own settings, an
 * npm package installed elsewhere) returns undefined: the manager knows rules this file does not repeat.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const PACKAGE_NAME = "pi-project-memory"

/** What Pi started in a project loads of this package (cli/piLoads.ts words it for `pm status`). */
export type PiLoads =
  | { readonly state: "loaded" | "switched-off"; readonly path: string; readonly source: string; readonly scope: "user" | "project" }
  | { readonly state: "not-installed"; readonly source: string }
  | { readonly state: "absent" }
  | { readonly state: "unknown"; readonly reason: string }

/** settings.json as Pi writes it: an object; undefined when it is missing; null when it cannot be read as one. */
const readSettings = (file: string): Record<string, unknown> | undefined | null => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null
  }
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** Does the folder hold anything (a missing folder holds nothing; an unreadable one may)? */
const holdsEntries = (dir: string): boolean => {
  try {
    return readdirSync(dir).length > 0
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ENOENT"
  }
}

/** An npm package named by name alone: `npm:name` or `npm:@scope/name`, no version, no alias. */
const NPM_BY_NAME = /^npm:((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)$/i

/** The extension file this package's manifest names, when it names exactly one plain path. */
const manifestExtension = (packageRoot: string): string | undefined => {
  const manifest = readSettings(join(packageRoot, "package.json"))
  // Pi counts an install without a version as missing.
  if (manifest === undefined || manifest === null || manifest["name"] !== PACKAGE_NAME || typeof manifest["version"] !== "string") return undefined
  const entries = (manifest["pi"] as { extensions?: unknown } | undefined)?.extensions
  // One path, not a glob and not an override pattern (`!x`, `+x`, `-x`).
  if (!Array.isArray(entries) || entries.length !== 1 || typeof entries[0] !== "string" || /^[!+-]|[*?[\]{}]/.test(entries[0])) return undefined
  const file = resolve(packageRoot, entries[0])
  return existsSync(file) ? file : undefined
}

/** Pi's answer when the files decide it (see above), else undefined. */
export const piLoadsFromFiles = (agentDir: string, cwd: string): PiLoads | undefined => {
  const settings = readSettings(join(agentDir, "settings.json"))
  if (settings === null) return undefined
  // A project's own settings and extensions, trusted or not, are the manager's to weigh.
  if (existsSync(join(cwd, ".pi"))) return undefined
  if (holdsEntries(join(agentDir, "extensions"))) return undefined
  const extensions = settings?.["extensions"]
  if (extensions !== undefined && !(Array.isArray(extensions) && extensions.length === 0)) return undefined
  const packages = settings?.["packages"] ?? []
  if (!Array.isArray(packages)) return undefined
  let ours: PiLoads | undefined
  for (const source of packages) {
    const name = typeof source === "string" ? NPM_BY_NAME.exec(source)?.[1] : undefined
    if (name === undefined) return undefined
    if (name !== PACKAGE_NAME) continue
    const root = join(agentDir, "npm", "node_modules", name)
    const path = manifestExtension(root)
    // Not installed there (Pi looks in npm's global folder next, which takes npm to find), or a manifest not plain.
    if (path === undefined) return undefined
    ours ??= { state: "loaded", path, source, scope: "user" }
  }
  return ours ?? { state: "absent" }
}
