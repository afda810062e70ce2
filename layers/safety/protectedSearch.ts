/**
 * The search for protected files that runs before every sandboxed command: the files under the scope's trees that the
 * protected-path rules name (`.env`, `id_*`, `*.pem` ...; the sandbox hides them), breadth first, without following
 * links, over at most PROTECTED_SEARCH_LIMIT entries. What it could not reach within the limit is returned as
 * `unchecked`, and the sandbox hides it whole: the search fails closed at any tree size.
 *
 * A task runs many commands over the same tree, so a search keeps what it learned of each folder (the names it
 * holds, the protected ones, its subfolders) and reads a folder again only when its modification time moved: adding,
 * removing or renaming an entry changes it. A folder changed less than RACY_MS before it was read is read again every
 * time, since a change in the same clock tick would leave its time as it was.
 */
import type { Dirent } from "node:fs"
import { readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import type { ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { outsideScope } from "../../src/safety/readScope.ts"
import { deniedInSandbox, SEARCH_SKIPS } from "../../src/safety/sandboxFilesystem.ts"

/** The most entries the search looks at for one command, over all its trees. */
export const PROTECTED_SEARCH_LIMIT = 100_000

/** A folder read less than this long after its last change is not trusted to the cache (coarse file-system clocks). */
export const RACY_MS = 2_000

export interface ProtectedSearch {
  /** Files the protected-path rules name, found in the trees (the sandbox denies them). */
  readonly found: ReadonlyArray<string>
  /** Folders the search did not finish within its limit: the sandbox hides them whole (it fails closed). */
  readonly unchecked: ReadonlyArray<string>
}

/** What one folder held when it was read. */
interface FolderEntry {
  readonly mtimeMs: number
  readonly readAt: number
  readonly entries: number
  readonly found: ReadonlyArray<string>
  readonly folders: ReadonlyArray<string>
}

/** What a task's searches learned of its folders; one per task (its tools). */
export type ProtectedSearchCache = Map<string, FolderEntry>

export const makeProtectedSearchCache = (): ProtectedSearchCache => new Map()

/** One folder, judged entry by entry. */
const readFolder = async (dir: string, protection: ProtectionOptions, mtimeMs: number): Promise<FolderEntry> => {
  const readAt = Date.now()
  const list: Array<Dirent> = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const found: Array<string> = []
  const folders: Array<string> = []
  for (const entry of list) {
    const full = join(dir, entry.name)
    if (protection.scope !== undefined && outsideScope(full, protection.scope) !== undefined) continue
    if (deniedInSandbox(full, protection)) found.push(full)
    else if (entry.isDirectory() && !SEARCH_SKIPS.has(entry.name)) folders.push(full)
  }
  return { mtimeMs, readAt, entries: list.length, found, folders }
}

/**
 * The protected files under `roots`, over at most `limit` entries; a root inside another is searched once. With a
 * `cache`, a folder whose modification time has not moved since it was read is not read again.
 */
export const protectedFilesIn = async (
  roots: ReadonlyArray<string>,
  protection: ProtectionOptions,
  limit = PROTECTED_SEARCH_LIMIT,
  cache?: ProtectedSearchCache
): Promise<ProtectedSearch> => {
  const found: Array<string> = []
  const unique = roots.filter((r, i) => roots.indexOf(r) === i)
  const queue = unique.filter((r) => !unique.some((o) => o !== r && (r.startsWith(`${o}/`) || o === "/")))
  let seen = 0
  while (queue.length > 0) {
    const dir = queue[0]!
    const mtimeMs = await stat(dir).then((s) => s.mtimeMs, () => -1)
    const known = cache?.get(dir)
    const folder = known !== undefined && known.mtimeMs === mtimeMs && known.readAt - mtimeMs >= RACY_MS
      ? known
      : await readFolder(dir, protection, mtimeMs)
    if (seen + folder.entries > limit) return { found, unchecked: [...queue] }
    cache?.set(dir, folder)
    queue.shift()
    seen += folder.entries
    found.push(...folder.found)
    queue.push(...folder.folders)
  }
  return { found, unchecked: [] }
}
