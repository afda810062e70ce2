/**
 * The project's repository found from the file system, without starting git, in the plain cases only: from a real
 * working directory upwards, the first folder holding a `.git` folder that is a repository (a HEAD naming a ref or a
 * commit, `objects` and `refs` folders) whose config sets no other work tree and does not call it bare, gives that
 * folder as the top level and its `.git` as the common directory: what `git rev-parse --show-toplevel
 * --git-common-dir` says there. Reaching the root with no `.git` and no repository anywhere gives "none" (git would
 * find none either). Everything else asks git: a `.git` file (a linked worktree, a submodule), a folder inside a
 * `.git` or that is itself a repository (bare), a config naming a work tree or saying bare, a climb that crosses into
 * another file system (git stops there), no git on PATH (then the project is its folder), anything unreadable.
 * Reads only; never fails.
 */
import * as Effect from "effect/Effect"
import { delimiter, dirname, join } from "node:path"
import type { Each, FileInfo, FileSystemShape, HeadRead } from "../storage/fileSystemShape.ts"

export type GitDiscovery = { readonly toplevel: string; readonly commonDir: string } | "none" | "ask"

/** Config and HEAD are small; a larger file is not a plain repository's. */
const READ_MAX = 64 * 1024
const HEAD = /^(?:ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/
/** A config that names a work tree, or says bare other than `bare = false` (what `git init` writes). */
const unusualConfig = (text: string): boolean =>
  text.split("\n").some((line) => {
    const l = line.trim().toLowerCase()
    return /^worktree\s*=/.test(l) || (/^bare\b/.test(l) && l.replace(/^bare\s*=?\s*/, "") !== "false")
  })

/** Whether a `git` file is in a folder of PATH: without git, the project is its folder, as when git fails. */
const gitOnPath = (fs: FileSystemShape): Effect.Effect<boolean> => {
  const folders = (process.env["PATH"] ?? "").split(delimiter).filter((d) => d !== "")
  const names = process.platform === "win32" ? ["git.exe", "git.cmd", "git"] : ["git"]
  return Effect.map(fs.statMany(folders.flatMap((d) => names.map((n) => join(d, n)))), (stats) => stats.some((s) => s._tag === "Right" && s.right.kind === "file"))
}

export const discoverGit = (fs: FileSystemShape, realCwd: string): Effect.Effect<GitDiscovery> =>
  Effect.gen(function* () {
    if (!(yield* gitOnPath(fs))) return "ask"
    const [start] = yield* fs.statMany([realCwd])
    if (start === undefined || start._tag === "Left" || start.right.kind !== "directory") return "ask"
    const dev = start.right.dev
    let dir = realCwd
    for (;;) {
      const dotGit = join(dir, ".git")
      const [gitStat, head, objects, refs, ownHead] = (yield* fs.statMany([
        dotGit,
        join(dotGit, "HEAD"),
        join(dotGit, "objects"),
        join(dotGit, "refs"),
        join(dir, "HEAD")
      ])) as [Each<FileInfo>, Each<FileInfo>, Each<FileInfo>, Each<FileInfo>, Each<FileInfo>]
      // The folder itself may be a repository (bare, or a git directory): git's answer differs there.
      if (ownHead._tag === "Right") return "ask"
      if (gitStat._tag === "Right") {
        // A `.git` file (a linked worktree, a submodule) has no HEAD below it, and a folder inside `.git` meets the
        // repository itself (its own HEAD) on the way up: both are left to git by the checks here.
        if (head._tag === "Left" || objects._tag === "Left" || refs._tag === "Left") return "ask"
        if (objects.right.kind !== "directory" || refs.right.kind !== "directory") return "ask"
        const [headText, config] = (yield* fs.readHeads([join(dotGit, "HEAD"), join(dotGit, "config")], READ_MAX)) as [Each<HeadRead>, Each<HeadRead>]
        if (headText._tag === "Left" || !HEAD.test(Buffer.from(headText.right.bytes).toString("utf8"))) return "ask"
        if (config._tag === "Left" || config.right.partial || unusualConfig(Buffer.from(config.right.bytes).toString("utf8"))) return "ask"
        const [commondir] = yield* fs.statMany([join(dotGit, "commondir")])
        if (commondir === undefined || commondir._tag === "Right") return "ask"
        return { toplevel: dir, commonDir: dotGit }
      }
      if (gitStat.left.reason !== "NotFound") return "ask"
      const parent = dirname(dir)
      if (parent === dir) return "none"
      const [up] = yield* fs.statMany([parent])
      if (up === undefined || up._tag === "Left" || up.right.dev !== dev) return "ask"
      dir = parent
    }
  })
