/**
 * What a sync does to each memory file, from three trees (the common base, ours, theirs), each a map from a path
 * in the memory folder to its blob id. Nothing is ever lost:
 *
 * - a file changed on one side only takes that side's version (a deletion included);
 * - `MEMORY.md` changed on both is merged line by line (indexMerge.ts);
 * - a topic changed on both, to different bytes, keeps ours as it is and theirs beside it as
 *   `<name>.conflict-<machine>.md`, which the dream merges at its next run; a topic one side deleted and the other
 *   changed is kept, changed.
 *
 * Conflict files are what `pm sync status` lists as waiting for a merge. Pure.
 */
import { INDEX_FILE } from "../storage/layout.ts"

export type Tree = ReadonlyMap<string, string>

export type FileAction =
  | { readonly _tag: "Take"; readonly path: string; readonly blob: string }
  | { readonly _tag: "Delete"; readonly path: string }
  | { readonly _tag: "MergeIndex"; readonly path: string; readonly base: string | undefined; readonly ours: string; readonly theirs: string }
  | { readonly _tag: "Conflict"; readonly path: string; readonly conflictPath: string; readonly blob: string }

const CONFLICT = /\.conflict-[a-z0-9-]+(?:-\d+)?\.md$/

/** Whether a file is another machine's version of a topic, waiting for the dream. */
export const isConflictFile = (path: string): boolean => CONFLICT.test(path)

/** The name theirs gets beside `path`: `<stem>.conflict-<machine>.md`, numbered when taken. */
export const conflictPathOf = (path: string, machine: string, taken: (p: string) => boolean): string => {
  const stem = path.replace(/\.md$/, "")
  for (let n = 1; ; n++) {
    const candidate = `${stem}.conflict-${machine}${n === 1 ? "" : `-${n}`}.md`
    if (!taken(candidate)) return candidate
  }
}

export const planMerge = (base: Tree, ours: Tree, theirs: Tree, machine: string): ReadonlyArray<FileAction> => {
  const actions: Array<FileAction> = []
  const paths = [...new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])].sort()
  const planned = new Set<string>()
  const taken = (p: string) => ours.has(p) || theirs.has(p) || planned.has(p)
  for (const path of paths) {
    const b = base.get(path)
    const o = ours.get(path)
    const t = theirs.get(path)
    if (o === t) continue
    if (o === b) {
      actions.push(t === undefined ? { _tag: "Delete", path } : { _tag: "Take", path, blob: t })
      continue
    }
    if (t === b) continue
    // Changed on both sides, differently.
    if (o === undefined) {
      actions.push({ _tag: "Take", path, blob: t! })
      continue
    }
    if (t === undefined) continue
    if (path === INDEX_FILE) {
      actions.push({ _tag: "MergeIndex", path, base: b, ours: o, theirs: t })
      continue
    }
    const conflictPath = conflictPathOf(path, machine, taken)
    planned.add(conflictPath)
    actions.push({ _tag: "Conflict", path, conflictPath, blob: t })
  }
  return actions
}
