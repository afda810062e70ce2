/**
 * What @effect/cli needs from the platform, and no more. The CLI library asks for a FileSystem (to check that a
 * `--cwd` or `--memory-dir` path exists and is a directory), a Path and a Terminal (for its interactive wizard).
 * `pm` reads memory through its own FileSystem service (layers/storage/FileSystem.ts), so the platform's full Node
 * implementation, whose modules cost about a third of pm's start-up, is replaced by these small ones:
 * `exists` and `stat` over node:fs, Node's path functions, and a Terminal that writes to stdout and loads Node's
 * terminal only when input is asked for (the hidden `--wizard`; no pm command prompts).
 */
import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Terminal from "@effect/platform/Terminal"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { existsSync, statSync, type Stats } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const typeOf = (s: Stats): FileSystem.File.Type =>
  s.isFile()
    ? "File"
    : s.isDirectory()
    ? "Directory"
    : s.isSymbolicLink()
    ? "SymbolicLink"
    : s.isBlockDevice()
    ? "BlockDevice"
    : s.isCharacterDevice()
    ? "CharacterDevice"
    : s.isFIFO()
    ? "FIFO"
    : s.isSocket()
    ? "Socket"
    : "Unknown"

const infoOf = (s: Stats): FileSystem.File.Info => ({
  type: typeOf(s),
  mtime: Option.some(s.mtime),
  atime: Option.some(s.atime),
  birthtime: Option.some(s.birthtime),
  dev: s.dev,
  ino: Option.some(s.ino),
  mode: s.mode,
  nlink: Option.some(s.nlink),
  uid: Option.some(s.uid),
  gid: Option.some(s.gid),
  rdev: Option.some(s.rdev),
  size: FileSystem.Size(s.size),
  blksize: Option.some(FileSystem.Size(s.blksize)),
  blocks: Option.some(s.blocks)
})

const reasonOf = (code: string | undefined): PlatformError.SystemErrorReason =>
  code === "ENOENT" || code === "ENOTDIR" ? "NotFound" : code === "EACCES" || code === "EPERM" ? "PermissionDenied" : "Unknown"

/** Only `exists` and `stat`: every other operation fails as unsupported, which no pm option reaches. */
const fileSystem = FileSystem.makeNoop({
  exists: (path) => Effect.sync(() => existsSync(path)),
  stat: (path) =>
    Effect.try({
      try: () => infoOf(statSync(path)),
      catch: (e) =>
        new PlatformError.SystemError({
          reason: reasonOf((e as NodeJS.ErrnoException).code),
          module: "FileSystem",
          method: "stat",
          pathOrDescriptor: path,
          description: (e as Error).message
        })
    })
})

/** Node's own terminal, loaded on the first request for input. */
const nodeTerminal = Effect.promise(() => import("@effect/platform-node/NodeTerminal")).pipe(
  Effect.flatMap((m) => m.make())
)

const terminal = Terminal.Terminal.of({
    columns: Effect.sync(() => process.stdout.columns ?? 80),
    rows: Effect.sync(() => process.stdout.rows ?? 24),
    isTTY: Effect.sync(() => process.stdout.isTTY === true),
    readInput: Effect.flatMap(nodeTerminal, (t) => t.readInput),
    readLine: Effect.scoped(Effect.flatMap(nodeTerminal, (t) => t.readLine)),
    display: (text) => Effect.sync(() => void process.stdout.write(text))
})

const badPath = (method: string) => (error: unknown) =>
  new PlatformError.BadArgument({ module: "Path", method, description: String(error) })

/** Node's own path functions, as @effect/platform's Node implementation offers them. */
const path = Path.Path.of({
  [Path.TypeId]: Path.TypeId,
  ...NodePath,
  fromFileUrl: (url) => Effect.try({ try: () => fileURLToPath(url), catch: badPath("fromFileUrl") }),
  toFileUrl: (p) => Effect.try({ try: () => pathToFileURL(p), catch: badPath("toFileUrl") })
})

/**
 * The environment @effect/cli runs in, as a context: providing it is one lookup, where a layer would go through
 * Effect's layer builder (a memo map and a scope) before the command line is even parsed.
 */
export const cliPlatformContext: Context.Context<FileSystem.FileSystem | Path.Path | Terminal.Terminal> = Context.make(
  FileSystem.FileSystem,
  fileSystem
).pipe(Context.add(Path.Path, path), Context.add(Terminal.Terminal, terminal))

/** The same, as a layer. */
export const cliPlatform: Layer.Layer<FileSystem.FileSystem | Path.Path | Terminal.Terminal> = Layer.succeedContext(
  cliPlatformContext
)
