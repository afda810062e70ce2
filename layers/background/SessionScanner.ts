/**
 * SessionScanner: which Pi sessions of this project were updated, read from the session directory. Only the header
 * line of each `.jsonl` file is read; a file that cannot be read or does not start with a Pi session header is
 * skipped, never fatal. Each directory is scanned at most once per interval per session (one extension runtime): the dream check runs after
 * every settled turn, and a session directory can hold thousands of files.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { join } from "node:path"
import { parseSessionHeader, type SessionFile } from "../../src/background/dreamSchedule.ts"
import { FileSystem } from "../storage/FileSystem.ts"
import { type FsError } from "../storage/FsError.ts"

/** Enough for any header line Pi writes (id, timestamp, cwd, parent session path). */
const HEADER_MAX_BYTES = 16 * 1024

export interface SessionScanRequest {
  readonly sessionDir: string
  /** Scans of the same directory closer together than this are refused. */
  readonly intervalMs: number
  /**
   * For a session directory shared by several projects: whether a session started in `cwd` belongs to this project.
   * Omitted for Pi's default per-directory session folders, where every session does.
   */
  readonly belongsToProject?: (cwd: string | undefined) => Effect.Effect<boolean>
}

export type SessionScan =
  | {
    readonly _tag: "Scanned"
    readonly files: ReadonlyArray<SessionFile>
    /** Files that were not readable Pi sessions (corrupt, unreadable, not a session header, another project). */
    readonly skipped: number
  }
  | { readonly _tag: "Throttled"; readonly nextScanAt: number }

export interface SessionScannerShape {
  readonly scan: (request: SessionScanRequest) => Effect.Effect<SessionScan, FsError>
}

export const makeSessionScanner = Effect.gen(function*() {
  const fs = yield* FileSystem
  const lastScanAt = yield* Ref.make(new Map<string, number>())

  const headerOf = (path: string) =>
    fs.readRegularFile(path, HEADER_MAX_BYTES).pipe(
      Effect.map((read) => {
        const text = new TextDecoder().decode(read.bytes)
        const end = text.indexOf("\n")
        return { header: parseSessionHeader(end === -1 ? text : text.slice(0, end)), mtimeMs: read.info.mtimeMs }
      }),
      Effect.orElseSucceed(() => undefined)
    )

  const scan = Effect.fn("SessionScanner.scan")(function*(request: SessionScanRequest) {
    const now = yield* Clock.currentTimeMillis
    const previous = (yield* Ref.get(lastScanAt)).get(request.sessionDir)
    if (previous !== undefined && now - previous < request.intervalMs) {
      return { _tag: "Throttled", nextScanAt: previous + request.intervalMs } satisfies SessionScan
    }
    yield* Ref.update(lastScanAt, (m) => new Map(m).set(request.sessionDir, now))
    const entries = yield* fs.readDirectory(request.sessionDir)
    const files: Array<SessionFile> = []
    let skipped = 0
    for (const entry of entries) {
      if (!entry.name.endsWith(".jsonl")) continue
      const read = yield* headerOf(join(request.sessionDir, entry.name))
      if (read === undefined || read.header === undefined) {
        skipped++
        continue
      }
      if (request.belongsToProject !== undefined && !(yield* request.belongsToProject(read.header.cwd))) {
        skipped++
        continue
      }
      files.push({ id: read.header.id, mtimeMs: read.mtimeMs })
    }
    return { _tag: "Scanned", files, skipped } satisfies SessionScan
  })

  return { scan } satisfies SessionScannerShape
})

export class SessionScanner extends Context.Tag("pm/SessionScanner")<SessionScanner, SessionScannerShape>() {
  /** The service's one constructor (its layer's, and the extension graph's). */
  static readonly make = makeSessionScanner
  static readonly layer: Layer.Layer<SessionScanner, never, FileSystem> = Layer.effect(SessionScanner, SessionScanner.make)
}
