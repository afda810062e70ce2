/**
 * The FileSystem of tests: the real one with some operations replaced (fault injection). A replaced one-path
 * operation also governs its batch form, so one fake covers every way the code reaches that operation.
 */
import { eachOf } from "./fileSystemBatches.ts"
import type { FileSystemShape } from "./fileSystemShape.ts"

/**
 * `real` with `overrides` in place. A replaced `stat`, `readDirectory` or `readRegularFile` also governs its batch form
 * (run path by path through it, at most 16 at once) unless the batch form is replaced too, so one fake covers every
 * way the code reaches that operation.
 */
export const withOverrides = (real: FileSystemShape, overrides: Partial<FileSystemShape>): FileSystemShape => {
  const merged: FileSystemShape = { ...real, ...overrides }
  return {
    ...merged,
    statMany: overrides.statMany ?? (overrides.stat === undefined ? real.statMany : (paths) => eachOf(paths, merged.stat)),
    readDirectories:
      overrides.readDirectories ?? (overrides.readDirectory === undefined ? real.readDirectories : (paths) => eachOf(paths, merged.readDirectory)),
    readHeads:
      overrides.readHeads ??
      (overrides.readRegularFile === undefined ? real.readHeads : (paths, maxBytes) => eachOf(paths, (path) => merged.readRegularFile(path, maxBytes)))
  }
}
