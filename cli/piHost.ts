/**
 * Where `pm` finds Pi. Outside Pi there is no loader to hand the host over, and an install from the registry has no Pi
 * of its own (the host is a peer dependency), so the package is looked for in these places, in order:
 *
 * 0. the Pi a one-shot run was running in, when it started this process as its background worker (its script is in
 *    the worker's environment: src/background/queueWorker.ts), so the worker uses the same Pi, on PATH or not;
 * 1. by name, from this file: a development checkout's dev dependency, or a Pi installed beside this package (the
 *    same global prefix, or the same project's `node_modules`);
 * 2. the `pi` command on PATH: its real path leads to the package folder of the Pi the user runs.
 *
 * Nothing here loads Pi; `importPiHost` does, on the first model request of `pm recall`.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { workerHandOver } from "../src/background/queueWorker.ts"

export const PI_PACKAGE = "@earendil-works/pi-coding-agent"

export interface PiInstall {
  /** The package folder (holding its package.json). */
  readonly root: string
  readonly version: string | null
  /** The module to import: the package's ES entry. */
  readonly entry: string
  readonly foundBy: "host" | "package" | "path"
}

interface PackageJson {
  readonly name?: string
  readonly version?: string
  readonly main?: string
  readonly exports?: unknown
}

const readPackage = (dir: string): PackageJson | undefined => {
  const file = join(dir, "package.json")
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PackageJson
  } catch {
    return undefined
  }
}

/** The folder above `start` (itself included) whose package.json names Pi. */
const piRootAbove = (start: string): string | undefined => {
  for (let dir = start; ; dir = dirname(dir)) {
    if (readPackage(dir)?.name === PI_PACKAGE) return dir
    if (dir === dirname(dir)) return undefined
  }
}

/** The ES entry a package.json declares for `import`, or its `main`. */
const entryOf = (root: string, pkg: PackageJson): string => {
  const dot = (pkg.exports as Record<string, unknown> | undefined)?.["."]
  const viaExports = typeof dot === "string" ? dot : (dot as Record<string, unknown> | undefined)?.["import"]
  return join(root, typeof viaExports === "string" ? viaExports : pkg.main ?? "index.js")
}

const installAt = (root: string, foundBy: PiInstall["foundBy"]): PiInstall | undefined => {
  const pkg = readPackage(root)
  if (pkg?.name !== PI_PACKAGE) return undefined
  return { root, version: pkg.version ?? null, entry: entryOf(root, pkg), foundBy }
}

const byName = (): PiInstall | undefined => {
  try {
    const root = piRootAbove(dirname(fileURLToPath(import.meta.resolve(PI_PACKAGE))))
    return root === undefined ? undefined : installAt(root, "package")
  } catch {
    return undefined
  }
}

const onPath = (env: NodeJS.ProcessEnv): PiInstall | undefined => {
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue
    const candidate = join(dir, "pi")
    if (!existsSync(candidate)) continue
    try {
      const root = piRootAbove(dirname(realpathSync(candidate)))
      const install = root === undefined ? undefined : installAt(root, "path")
      if (install !== undefined) return install
    } catch {
      // A dangling link or an unreadable folder: try the next PATH entry.
    }
  }
  return undefined
}

const handedOver = (env: NodeJS.ProcessEnv): PiInstall | undefined => {
  const script = workerHandOver(env).piScript
  if (script === undefined) return undefined
  try {
    const root = piRootAbove(dirname(realpathSync(script)))
    return root === undefined ? undefined : installAt(root, "host")
  } catch {
    return undefined
  }
}

/** The Pi that `pm` would use, if any; reads package files only. */
export const findPi = (env: NodeJS.ProcessEnv = process.env): PiInstall | undefined => handedOver(env) ?? byName() ?? onPath(env)

export const PI_MISSING =
  `Pi was not found: pm looked for the ${PI_PACKAGE} package beside this one and for a \`pi\` command on PATH. ` +
  `Install Pi (npm install -g ${PI_PACKAGE}) or put its \`pi\` on PATH.`

/** A module of the Pi that `findPi` names, by its path in the package; undefined when there is none or it fails to load. */
export const importPiFile = async (path: string, env: NodeJS.ProcessEnv = process.env): Promise<unknown> => {
  const install = findPi(env)
  if (install === undefined) return undefined
  return import(pathToFileURL(join(install.root, path)).href).catch(() => undefined)
}

/** Imports the Pi that `findPi` names; a clear error when there is none. */
export const importPiHost = async (env: NodeJS.ProcessEnv = process.env): Promise<typeof import("@earendil-works/pi-coding-agent")> => {
  const install = findPi(env)
  if (install === undefined) throw new Error(PI_MISSING)
  return (await import(pathToFileURL(install.entry).href)) as typeof import("@earendil-works/pi-coding-agent")
}
