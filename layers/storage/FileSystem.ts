/**
 * FileSystem: the narrow set of file operations the product needs, with one typed error.
 * Our own service rather than @effect/platform's so that fault injection (fail at temp write, rename, cleanup)
 * is one small fake, and so non-blocking opens of FIFOs and devices are explicit. The interface is in
 * fileSystemShape.ts, the error in FsError.ts, the real implementation in nodeFileSystem.ts.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { FileSystemShape } from "./fileSystemShape.ts"
import { withOverrides } from "./fileSystemOverrides.ts"
import { makeNodeFileSystem } from "./nodeFileSystem.ts"

export class FileSystem extends Context.Tag("pm/FileSystem")<FileSystem, FileSystemShape>() {
  static readonly layer: Layer.Layer<FileSystem> = Layer.sync(FileSystem, makeNodeFileSystem)
  /** The real file system with some operations replaced: for fault injection in tests (see withOverrides). */
  static readonly layerWith = (overrides: Partial<FileSystemShape>): Layer.Layer<FileSystem> =>
    Layer.sync(FileSystem, () => withOverrides(makeNodeFileSystem(), overrides))
}
