/** What the `pm` handlers share: finding the project and its memory directory, and failing with one line. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readdirSync, realpathSync, statSync } from "node:fs"
import { resolve } from "node:path"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { sha256Hex24 } from "../src/project/projectKey.ts"
import { memoryRootDirOf, type ProjectLocation } from "../src/storage/layout.ts"
import { fail } from "./output.ts"

/**
 * Locates the project, reporting config warnings on stderr (never on stdout, which may be JSON). `inspect` only
 * looks: nothing is claimed or created.
 */
const locateHow = (how: "locate" | "inspect") => (cwd: string) =>
  Effect.gen(function* () {
    const config = yield* ConfigService
    const { warnings } = yield* config.load
    for (const w of warnings) process.stderr.write(`pm: warning: ${w.message}\n`)
    return yield* (yield* ProjectLocator)[how](resolve(cwd))
  })
export const locate = locateHow("locate")
export const inspect = locateHow("inspect")

/** A `--memory-dir` that is missing or unreadable is an error naming it, not an empty memory. */
const existingMemoryDir = (dir: string) =>
  Effect.try({
    try: () => {
      if (!statSync(dir).isDirectory()) throw new Error(`memory directory ${dir} is not a directory`)
      readdirSync(dir)
      return dir
    },
    catch: (e) => {
      const code = (e as NodeJS.ErrnoException).code
      return {
        message: code === "ENOENT"
          ? `memory directory ${dir} does not exist`
          : code === undefined ? (e as Error).message : `memory directory ${dir} cannot be read (${code})`
      }
    }
  })

/**
 * The memory directory a reading command looks at: `--memory-dir`, or the project's, located without writing
 * (a read-only store can be scanned, linted and logged; a project without memory yet reads as empty).
 */
export const memoryDirOf = (cwd: string, override: Option.Option<string>) =>
  Option.isSome(override) ? existingMemoryDir(resolve(override.value)) : inspect(cwd).pipe(Effect.map((l) => l.memoryDir))

/**
 * The project's location with `--memory-dir` in place of its memory directory (which must exist): the memory-root
 * hash, and with it the journal, state and locks, are the ones of that directory, as they are for a configured
 * `autoMemoryDirectory`. Without the option, the location as it is.
 */
export const withMemoryDir = (location: ProjectLocation, override: Option.Option<string>) =>
  Option.isNone(override)
    ? Effect.succeed(location)
    : existingMemoryDir(resolve(override.value)).pipe(
      Effect.map((dir): ProjectLocation => {
        const memoryRootHash = sha256Hex24(realpathSync(dir))
        return { ...location, memoryDir: dir, memoryRootHash, memoryRootDir: memoryRootDirOf(location.storageRoot, memoryRootHash) }
      })
    )

/** Located without writing (`inspect`), with `--memory-dir` in place of the project's memory directory. */
export const inspectWith = (cwd: string, override: Option.Option<string>) =>
  inspect(cwd).pipe(Effect.flatMap((l) => withMemoryDir(l, override)))

/**
 * Located for a command that changes memory: the project is set up (`locate`), unless `--memory-dir` names the
 * directory to change, which needs nothing of the project's set up.
 */
export const locateWith = (cwd: string, override: Option.Option<string>) =>
  Option.isSome(override) ? inspectWith(cwd, override) : locate(cwd)

export const orFail = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.catchAll((e) => fail(e.message)))

/** Progress while a person's command waits for a lock someone else holds. */
const waitingOnStderr = (line: string) => Effect.sync(() => void process.stderr.write(`pm: ${line}\n`))

/** `--wait SECONDS` (forget, undo, remember) as the services take it, with progress, and changes rolled back first, on stderr. */
export const waitOf = (wait: Option.Option<number>) =>
  Option.isSome(wait)
    ? { maxWaitMs: Math.max(0, wait.value) * 1000, onWaiting: waitingOnStderr, onRecovered: waitingOnStderr }
    : { onWaiting: waitingOnStderr, onRecovered: waitingOnStderr }
