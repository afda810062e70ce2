/**
 * ProjectLocator: from a working directory to the project's identity and storage (DECISIONS D2-D4).
 * The repository is read from the file system in the plain cases (gitDiscovery.ts); otherwise git is asked with
 * side-effect-free queries; git missing or failing means "not in git", never an error.
 */
import * as Context from "effect/Context"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import { basename, dirname, join, resolve } from "node:path"
import { collisionKeyOf, projectKeyOf, sha256Hex24 } from "../../src/project/projectKey.ts"
import { memoryRootDirOf, PROJECT_ROOT_MARKER, projectsDirOf, type ProjectLocation } from "../../src/storage/layout.ts"
import { publishFile, sweepTemps, TEMP_STALE_MS } from "../storage/AtomicPublish.ts"
import { historySetting } from "../../src/project/historySwitch.ts"
import { ConfigService } from "./ConfigService.ts"
import { askGit, type GitAnswer } from "./gitQuery.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { discoverGit } from "./gitDiscovery.ts"
import { type FsError, fsReasonText } from "../storage/FsError.ts"

export class ProjectLocateError extends Data.TaggedError("ProjectLocateError")<{
  readonly cwd: string
  readonly message: string
}> {}

export interface ProjectLocatorShape {
  /** Root only: git root (main checkout for linked worktrees) or realpath(cwd). No writes. */
  readonly projectRootOf: (cwd: string) => Effect.Effect<string, ProjectLocateError>
  /** Full location; claims the project key with `.project-root` and creates the memory directory. */
  readonly locate: (cwd: string) => Effect.Effect<ProjectLocation, ProjectLocateError>
  /**
   * The location `locate` would give, read without writing anything (no marker claimed, no directory made): for
   * commands that only look (`pm project`, `pm status`, `pm doctor`).
   */
  readonly inspect: (cwd: string) => Effect.Effect<ProjectLocation, ProjectLocateError>
}

export const makeProjectLocator = Effect.gen(function* () {
  const fs = yield* FileSystem
  const config = yield* ConfigService

  const fail = (cwd: string, message: string) => new ProjectLocateError({ cwd, message })
  const real = (cwd: string, path: string) =>
    fs.realpath(path).pipe(Effect.mapError((e) => fail(cwd, `cannot resolve ${path}: ${fsReasonText(e.reason, e.detail)}`)))

  /**
   * Concurrent identical queries share one git process: at session start the memory side and the background side
   * locate the same directory at the same moment, and spawning a process from a large Node heap costs several
   * milliseconds of the main thread each time. Only queries in flight are shared, never kept: the next locate asks
   * git again. A caller that is interrupted stops waiting; the shared query itself ends within git's own timeout.
   */
  const inFlight = new Map<string, Promise<GitAnswer | undefined>>()
  const askGitShared = (cwd: string): Effect.Effect<GitAnswer | undefined> =>
    Effect.suspend(() => {
      let pending = inFlight.get(cwd)
      if (pending === undefined) {
        const started = askGit(cwd).finally(() => inFlight.delete(cwd))
        inFlight.set(cwd, started)
        pending = started
      }
      const answer = pending
      return Effect.promise(() => answer)
    })

  const projectRootOf = Effect.fn("ProjectLocator.projectRootOf")(function* (cwd: string) {
    const canonicalCwd = yield* real(cwd, resolve(cwd))
    // The plain cases are read from the file system (gitDiscovery.ts); git is started only for the others.
    const found = yield* discoverGit(fs, canonicalCwd)
    const git = found === "ask" ? yield* askGitShared(canonicalCwd) : found === "none" ? undefined : found
    if (git === undefined) return canonicalCwd
    const commonDir = yield* fs.realpath(resolve(canonicalCwd, git.commonDir)).pipe(Effect.option)
    // A linked worktree whose common dir is a `.git` folder belongs to the checkout that owns that folder.
    if (commonDir._tag === "Some" && basename(commonDir.value) === ".git") {
      return yield* real(cwd, dirname(commonDir.value))
    }
    return yield* real(cwd, git.toplevel)
  })

  /** Claims `dir` for `root` with an exclusive marker; returns false when another root holds it. */
  const claim = (cwd: string, dir: string, root: string) =>
    Effect.gen(function* () {
      const marker = join(dir, PROJECT_ROOT_MARKER)
      // A marker already in place is only read: locating a project that is set up writes nothing (a full or
      // read-only disk does not stop it).
      const present = yield* markerAllows(dir, root).pipe(Effect.option)
      if (present._tag === "Some") return present.value
      yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError((e) => fail(cwd, e.message)))
      yield* sweepTemps(fs, dir, { olderThanMs: TEMP_STALE_MS, recursive: false })
      // Published whole and only if absent: never seen empty or half written, never replacing another root's claim.
      const outcome = yield* publishFile(fs, { dir, name: PROJECT_ROOT_MARKER, content: `${root}\n`, mode: "create", durable: true }).pipe(
        Effect.mapError((e: FsError) => fail(cwd, `cannot write ${marker}: ${fsReasonText(e.reason, e.detail)}`))
      )
      if (outcome._tag === "Published") return true
      return yield* markerAllows(dir, root).pipe(Effect.mapError((e) => fail(cwd, `cannot read ${marker}: ${fsReasonText(e.reason, e.detail)}`)))
    })

  /** Whether `dir`'s marker lets `root` use it. An empty marker (an older writer crashed) names no root: it does. */
  const markerAllows = (dir: string, root: string) =>
    fs.readRegularFile(join(dir, PROJECT_ROOT_MARKER), 64 * 1024).pipe(
      Effect.map((r) => {
        const recorded = Buffer.from(r.bytes).toString("utf8").replace(/\n$/, "")
        return recorded === root || recorded === ""
      })
    )

  /** The location both `locate` and `inspect` report, from the key chosen and the memory directory's real path. */
  const locationOf = (projectRoot: string, projectKey: string, memoryDir: string, canonicalMemory: string): ProjectLocation => {
    const projectDir = join(projectsDirOf(config.storageRoot), projectKey)
    const memoryRootHash = sha256Hex24(canonicalMemory)
    return {
      projectRoot,
      projectKey,
      projectDir,
      memoryDir,
      memoryRootHash,
      memoryRootDir: memoryRootDirOf(config.storageRoot, memoryRootHash),
      storageRoot: config.storageRoot,
      legacyStatePath: join(projectDir, "state.json")
    }
  }

  const locateOnce = Effect.fn("ProjectLocator.locate")(function* (cwd: string) {
    const projectRoot = yield* projectRootOf(cwd)
    const { config: cfg } = yield* config.load
    const projectsDir = projectsDirOf(config.storageRoot)
    let projectKey = projectKeyOf(projectRoot)
    if (!(yield* claim(cwd, join(projectsDir, projectKey), projectRoot))) {
      // Another root holds the plain key: this root's own `<key>-<sha256>` directory, which must be ours too.
      projectKey = collisionKeyOf(projectRoot)
      const marker = join(projectsDir, projectKey, PROJECT_ROOT_MARKER)
      if (!(yield* claim(cwd, join(projectsDir, projectKey), projectRoot))) {
        return yield* Effect.fail(
          fail(cwd, `${marker} names another project root; this project's memory cannot be placed. Check that file.`)
        )
      }
    }
    const projectDir = join(projectsDir, projectKey)
    const configured = cfg.autoMemoryDirectory
    const wanted = configured ?? join(projectDir, "memory")
    yield* fs.makeDirectory(wanted, { recursive: true }).pipe(
      Effect.mapError((e) => fail(cwd, `cannot create the memory directory ${wanted}: ${fsReasonText(e.reason, e.detail)}`))
    )
    const location = locationOf(projectRoot, projectKey, wanted, yield* real(cwd, wanted))
    // The memory history follows its switch here, where every writer of memory passes (nothing when never set).
    // Imported here: a command that only looks never loads the history's modules.
    const { reconcile } = yield* Effect.promise(() => import("../history/historyRepo.ts"))
    yield* reconcile(fs, { memoryRootDir: location.memoryRootDir, memoryDir: wanted }, historySetting(cfg, projectRoot))
    return location
  })

  /**
   * Concurrent locates of one folder are one locate: at session start the memory side and the background side locate
   * the same folder at the same moment, and each would claim the key, make the folders and follow the history switch.
   * As with git's answer, only a locate in flight is shared, never its result: the next one starts afresh. When the
   * fiber doing it is interrupted, a caller waiting on it locates by itself.
   */
  const locating = new Map<string, Deferred.Deferred<ProjectLocation, ProjectLocateError>>()
  const locate = (cwd: string): Effect.Effect<ProjectLocation, ProjectLocateError> =>
    Effect.suspend(() => {
      const pending = locating.get(cwd)
      if (pending !== undefined) {
        return Deferred.await(pending).pipe(
          Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? locate(cwd) : Effect.failCause(cause)))
        )
      }
      const done = Deferred.unsafeMake<ProjectLocation, ProjectLocateError>(FiberId.none)
      locating.set(cwd, done)
      return locateOnce(cwd).pipe(
        Effect.onExit((exit) => Effect.suspend(() => {
          locating.delete(cwd)
          return Deferred.done(done, exit)
        }))
      )
    })

  /** Whether `root` could claim `dir`, without claiming it: no marker yet counts as yes. */
  const wouldClaim = (dir: string, root: string) => markerAllows(dir, root).pipe(Effect.orElseSucceed(() => true))

  /** The real path of `path`, or of its nearest existing ancestor with the rest appended (what `mkdir -p` would make). */
  const canonicalOf = (path: string): Effect.Effect<string> =>
    fs.realpath(path).pipe(
      Effect.orElse(() => {
        const parent = dirname(path)
        return parent === path ? Effect.succeed(path) : Effect.map(canonicalOf(parent), (p) => join(p, basename(path)))
      })
    )

  const inspect = Effect.fn("ProjectLocator.inspect")(function* (cwd: string) {
    const projectRoot = yield* projectRootOf(cwd)
    const { config: cfg } = yield* config.load
    const projectsDir = projectsDirOf(config.storageRoot)
    const plainKey = projectKeyOf(projectRoot)
    const projectKey = (yield* wouldClaim(join(projectsDir, plainKey), projectRoot)) ? plainKey : collisionKeyOf(projectRoot)
    const wanted = cfg.autoMemoryDirectory ?? join(projectsDir, projectKey, "memory")
    return locationOf(projectRoot, projectKey, wanted, yield* canonicalOf(wanted))
  })

  return { projectRootOf, locate, inspect } satisfies ProjectLocatorShape
})

export class ProjectLocator extends Context.Tag("pm/ProjectLocator")<ProjectLocator, ProjectLocatorShape>() {
  static readonly layer: Layer.Layer<ProjectLocator, never, FileSystem | ConfigService> = Layer.effect(
    ProjectLocator,
    makeProjectLocator
  )
}
