/**
 * Reading the memory history: a commit's memory files (`*.md`, no dot-file) as a map from path to blob id, a blob's
 * text, a ref's commit, ancestry and the common base. Read-only git commands, bounded like every other (git.ts).
 */
import * as Effect from "effect/Effect"
import type { Tree } from "../../src/history/treeMerge.ts"
import { gitAnswers, type GitFailed, type HistoryRepo, runGit } from "./git.ts"

const isMemoryPath = (path: string): boolean => path.endsWith(".md") && !path.split("/").some((s) => s.startsWith("."))

/** The memory files of `commit` (undefined: the empty tree). */
export const treeOf = (repo: HistoryRepo, commit: string | undefined): Effect.Effect<Tree, GitFailed> =>
  commit === undefined
    ? Effect.succeed(new Map())
    : Effect.map(runGit(repo, ["ls-tree", "-r", "-z", "--full-tree", commit]), ({ stdout }) => {
      const tree = new Map<string, string>()
      for (const entry of stdout.split("\0")) {
        const tab = entry.indexOf("\t")
        if (tab < 0) continue
        const [, type, blob] = entry.slice(0, tab).split(" ")
        const path = entry.slice(tab + 1)
        if (type === "blob" && blob !== undefined && isMemoryPath(path)) tree.set(path, blob)
      }
      return tree
    })

/** A blob's exact bytes (a topic taken from the other machine is published as it is, bytes that are not UTF-8 included). */
export const blobBytes = (repo: HistoryRepo, blob: string): Effect.Effect<Uint8Array, GitFailed> =>
  Effect.map(runGit(repo, ["cat-file", "blob", blob], { bytes: true }), (r) => r.raw ?? new Uint8Array())

export const blobText = (repo: HistoryRepo, blob: string): Effect.Effect<string, GitFailed> =>
  Effect.map(blobBytes(repo, blob), (bytes) => new TextDecoder().decode(bytes))

/** The commit a ref names, or undefined when it does not exist (an empty history, a branch never fetched). */
export const commitOf = (repo: HistoryRepo, ref: string): Effect.Effect<string | undefined, GitFailed> =>
  Effect.map(runGit(repo, ["rev-parse", "-q", "--verify", `${ref}^{commit}`], { okCodes: [1, 128] }), (r) => {
    const sha = r.stdout.trim()
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined
  })

export const isAncestor = (repo: HistoryRepo, older: string, newer: string): Effect.Effect<boolean, GitFailed> =>
  gitAnswers(repo, ["merge-base", "--is-ancestor", older, newer])

/** The best common base of two commits, or undefined when they share none. */
export const baseOf = (repo: HistoryRepo, a: string, b: string): Effect.Effect<string | undefined, GitFailed> =>
  Effect.map(runGit(repo, ["merge-base", a, b], { okCodes: [1] }), (r) => r.stdout.trim() || undefined)

/** How many commits `to` has that `from` has not (all of `to`'s when `from` is undefined). */
export const countAhead = (repo: HistoryRepo, from: string | undefined, to: string | undefined): Effect.Effect<number, GitFailed> =>
  to === undefined
    ? Effect.succeed(0)
    : Effect.map(runGit(repo, ["rev-list", "--count", from === undefined ? to : `${from}..${to}`]), (r) => Number(r.stdout.trim()) || 0)

/** The machine that made `commit`, from our fixed author address `pm@<machine>`. */
export const machineOfCommit = (repo: HistoryRepo, commit: string): Effect.Effect<string, GitFailed> =>
  Effect.map(runGit(repo, ["log", "-1", "--format=%ae", commit]), (r) => /^pm@([a-z0-9-]+)$/.exec(r.stdout.trim())?.[1] ?? "other")
