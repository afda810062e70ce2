/**
 * Whether Pi loads project memory in a project, for `pm status`: Pi's own package manager resolves the extensions
 * its settings name (the packages and extension paths of `settings.json` in the agent folder and, in a project Pi
 * trusts, of `.pi/settings.json`, and the folders it finds in `extensions/`), installing nothing; project memory is
 * loaded when one of them, switched on, belongs to a package named pi-project-memory. `pi -e PATH` adds an extension
 * for one run, which no file shows.
 *
 * The cases Pi's files decide alone are read from them (cli/piLoadsFromFiles.ts: nothing configured, or npm packages
 * by name in the agent folder); for the rest, Pi's package manager is imported from its module in the Pi install (a
 * path inside the package, not among its exports: the whole package takes seconds to load); a Pi without that
 * module is imported whole.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { findPi, importPiFile, importPiHost } from "./piHost.ts"
import { PACKAGE_NAME, type PiLoads, piLoadsFromFiles } from "./piLoadsFromFiles.ts"

export { PACKAGE_NAME, type PiLoads }

interface Resolved {
  readonly path: string
  readonly enabled: boolean
  readonly metadata: { readonly source: string; readonly scope: string; readonly packageRoot?: string }
}
interface PackageManager {
  resolve(onMissing: (source: string) => Promise<"skip">): Promise<{ readonly extensions: ReadonlyArray<Resolved> }>
  listConfiguredPackages(): ReadonlyArray<{ readonly source: string; readonly scope: string; readonly installedPath?: string }>
}
interface PiParts {
  readonly DefaultPackageManager: new (options: Record<string, unknown>) => PackageManager
  readonly SettingsManager: { create(cwd: string, agentDir: string): unknown }
}

/** The name in the package.json of `start` or the nearest folder above it (the package a file there belongs to). */
const packageNameOf = (start: string): string | undefined => {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, "package.json")
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name as string | undefined
      } catch {
        return undefined
      }
    }
    if (dirname(dir) === dir) return undefined
  }
}

const piParts = async (): Promise<PiParts> => {
  const [manager, settings] = await Promise.all([importPiFile("dist/core/package-manager.js"), importPiFile("dist/core/settings-manager.js")])
  const parts = { ...(manager as object | undefined), ...(settings as object | undefined) } as Partial<PiParts>
  if (typeof parts.DefaultPackageManager === "function" && typeof parts.SettingsManager?.create === "function") return parts as PiParts
  return (await importPiHost()) as unknown as PiParts
}

/** What Pi started in `cwd` with `agentDir` loads; `trusted`: whether it trusts the project (its settings count then). */
export const piLoads = async (agentDir: string, cwd: string, trusted: boolean): Promise<PiLoads> => {
  if (findPi() === undefined) return { state: "unknown", reason: "Pi was not found" }
  // The common cases are decided by Pi's files alone; loading Pi's package manager costs most of a second.
  return piLoadsFromFiles(agentDir, cwd) ?? piLoadsByPi(agentDir, cwd, trusted)
}

/** The same, always from Pi's package manager (the tests hold the files' answer to it). */
export const piLoadsByPi = async (agentDir: string, cwd: string, trusted: boolean): Promise<PiLoads> => {
  try {
    const { DefaultPackageManager, SettingsManager } = await piParts()
    const manager = new DefaultPackageManager({ cwd, agentDir, settingsManager: SettingsManager.create(cwd, agentDir), commandOutput: "capture" })
    const ours = (await manager.resolve(async () => "skip")).extensions.filter(
      (e) => (trusted || e.metadata.scope !== "project") && packageNameOf(e.metadata.packageRoot ?? dirname(e.path)) === PACKAGE_NAME
    )
    const found = ours.find((e) => e.enabled) ?? ours[0]
    if (found !== undefined) {
      return { state: found.enabled ? "loaded" : "switched-off", path: found.path, source: found.metadata.source, scope: found.metadata.scope === "project" ? "project" : "user" }
    }
    const named = manager.listConfiguredPackages().find((p) => p.source.includes(PACKAGE_NAME) && p.installedPath === undefined && (trusted || p.scope !== "project"))
    return named === undefined ? { state: "absent" } : { state: "not-installed", source: named.source }
  } catch (e) {
    return { state: "unknown", reason: e instanceof Error ? e.message : String(e) }
  }
}

/** The status line's text (after its label). */
export const piLoadsLine = (l: PiLoads, agentDir: string): string => {
  const settings = join(agentDir, "settings.json")
  switch (l.state) {
    case "loaded":
      return `loads project memory from ${l.path} (${l.source === "auto" ? `found in ${join(agentDir, "extensions")}` : `${l.source}, in ${l.scope === "user" ? settings : "the project's .pi/settings.json"}`})`
    case "switched-off":
      return `has project memory (${l.source}) but its settings switch the extension off, so Pi does not load it (pi config switches it on)`
    case "not-installed":
      return `does not load project memory yet: ${settings} names ${l.source}, which is not installed (pi install ${l.source} installs it)`
    case "absent":
      return `does not load project memory: nothing in ${settings} or ${join(agentDir, "extensions")} is this package. ` +
        `To add it: pi install npm:${PACKAGE_NAME} (for one run: pi -e PATH)`
    case "unknown":
      return `cannot tell whether Pi loads project memory: ${l.reason}`
  }
}
