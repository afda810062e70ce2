/**
 * The kept manifest of a memory directory on disk: one file per memory root, `topic-manifest.json` in its state folder
 * (memory-roots/<hash>/, outside the memory folder), so that a new process starts from the headers and ranked words
 * an earlier one read instead of reading every topic again. Loading reads at most MANIFEST_CACHE_MAX_BYTES and gives
 * undefined for a missing, larger, unreadable, corrupt or foreign file: it is never trusted, only ignored and made
 * again. What it gives is still checked topic by topic (the manifest's first refresh lists every folder and stats
 * every topic). Saving writes a temp file and renames it over the old one, so a reader sees the old file or the new
 * one whole; a manifest above the bound is not written (and an older file is removed). Neither ever fails.
 */
import * as Effect from "effect/Effect"
import { basename, dirname, join } from "node:path"
import { MANIFEST_CACHE_MAX_BYTES } from "../../src/limits.ts"
import { sha256Hex24 } from "../../src/project/projectKey.ts"
import { memoryRootDirOf } from "../../src/storage/layout.ts"
import { publishFile } from "../storage/AtomicPublish.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import { type CachedManifest, decodeManifestCache, encodeManifestCache } from "./manifestCacheFormat.ts"
import { decode } from "./readText.ts"

export const MANIFEST_CACHE_FILE = "topic-manifest.json"

/** Where a memory directory's manifest is kept, if anywhere. */
export type ManifestCachePlace = (memoryDir: string) => Effect.Effect<string | undefined>

/** The kept manifest's path under `storageRoot`: the state folder of the memory directory's real path. */
export const manifestCacheIn = (fs: FileSystemShape, storageRoot: string): ManifestCachePlace => (memoryDir) =>
  fs.realpath(memoryDir).pipe(
    Effect.map((real) => join(memoryRootDirOf(storageRoot, sha256Hex24(real)), MANIFEST_CACHE_FILE)),
    Effect.orElseSucceed(() => undefined)
  )

export const loadManifestCache = (fs: FileSystemShape, path: string, memoryDir: string, maxBytes = MANIFEST_CACHE_MAX_BYTES): Effect.Effect<CachedManifest | undefined> =>
  Effect.map(fs.readHeads([path], maxBytes + 1), ([read]) => {
    if (read === undefined || read._tag === "Left" || read.right.bytes.length > maxBytes) return undefined
    return decodeManifestCache(decode(read.right.bytes), memoryDir)
  })

export const saveManifestCache = (fs: FileSystemShape, path: string, kept: CachedManifest, maxBytes = MANIFEST_CACHE_MAX_BYTES): Effect.Effect<void> => {
  const text = encodeManifestCache(kept, maxBytes)
  if (text === undefined) return Effect.ignore(fs.unlink(path))
  return Effect.gen(function* () {
    yield* fs.makeDirectory(dirname(path), { recursive: true })
    yield* publishFile(fs, { dir: dirname(path), name: basename(path), content: text, mode: "replace" })
  }).pipe(Effect.ignore)
}
