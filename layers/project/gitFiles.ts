/**
 * Where git would find the repository holding a folder, read from the files git itself reads, without starting git
 * (a process spawned at a session's start costs its first request several milliseconds or more). Walking up from the
 * folder, the first `.git`: a folder holding `HEAD` (the work tree is its parent, the common dir the folder itself),
 * or a file `gitdir: <path>` naming a git dir that holds `HEAD` (a linked worktree, whose `commondir` file names the
 * main repository's git dir, or a submodule). It answers only what it can decide exactly as
 * `git rev-parse --show-toplevel --git-common-dir` would; anything else is "ask git": a folder on the way that is
 * itself a git dir (a `.git` folder, a bare repository), a `.git` that is neither form, a git config that moves or
 * removes the work tree (`worktree`, `bare`), another file system than the folder's (git stops there), a file it
 * cannot read. With no `git` on PATH it answers "none", as git's absence means "not in git" to the locator.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { basename, delimiter, dirname, isAbsolute, join, resolve } from "node:path"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"

export type GitFiles =
  | { readonly _tag: "Found"; readonly toplevel: string; readonly commonDir: string }
  | { readonly _tag: "None" }
  | { readonly _tag: "AskGit" }

const ASK: GitFiles = { _tag: "AskGit" }
const NONE: GitFiles = { _tag: "None" }

/** Deeper than any real folder tree: past it, git is asked. */
const MAX_LEVELS = 256
/** A `.git` file, `commondir` and a git config are small; a larger one is left to git. */
const MAX_FILE_BYTES = 65_536

/** The path a `.git` file names (`gitdir: <path>`), or undefined when it is not that form. */
export const gitdirOf = (text: string): string | undefined => {
  const m = /^gitdir: (.+?)\r?\n?$/.exec(text)
  return m === null || m[1]!.trim() === "" ? undefined : m[1]!
}

/**
 * Whether a git config may move or remove the work tree: it sets `core.worktree` or `core.bare` true, includes
 * another file, or turns on per-worktree config files (which could set either).
 */
export const configMovesWorkTree = (text: string): boolean =>
  /^\s*(worktree|worktreeconfig)\s*=/im.test(text) || /^\s*bare\s*(=\s*(true|yes|on|1)\s*)?$/im.test(text) || /^\s*\[\s*include/im.test(text)

export const readGitFiles = (fs: FileSystemShape, canonicalCwd: string, path = process.env["PATH"] ?? ""): Effect.Effect<GitFiles> =>
  Effect.gen(function* () {
    const dirs = path.split(delimiter).filter((d) => d !== "" && isAbsolute(d))
    const gits = yield* fs.statMany(dirs.map((d) => join(d, "git")))
    if (!gits.some((g) => g !== undefined && Either.isRight(g) && g.right.kind === "file")) return NONE
    const text = (file: string) =>
      fs.readRegularFile(file, MAX_FILE_BYTES).pipe(
        Effect.map((r) => (r.partial ? undefined : Buffer.from(r.bytes).toString("utf8"))),
        Effect.orElseSucceed(() => undefined)
      )
    /** A git dir git would use: it holds HEAD, and its config (the common dir's) leaves the work tree alone. */
    const usable = (gitDir: string, commonDir: string) =>
      Effect.gen(function* () {
        const [head] = yield* fs.statMany([join(gitDir, "HEAD")])
        if (head === undefined || Either.isLeft(head) || head.right.kind !== "file") return false
        const config = yield* text(join(commonDir, "config"))
        return config !== undefined && !configMovesWorkTree(config)
      })
    let dir = canonicalCwd
    let device: number | undefined
    for (let level = 0; level < MAX_LEVELS; level++) {
      const [self, head, dotGit] = yield* fs.statMany([dir, join(dir, "HEAD"), join(dir, ".git")])
      if (self === undefined || Either.isLeft(self) || self.right.kind !== "directory") return ASK
      if (device !== undefined && self.right.dev !== device) return ASK
      device = self.right.dev
      // A folder that is itself a git dir (inside `.git`, a bare repository): git answers differently there.
      if (basename(dir) === ".git" || (head !== undefined && Either.isRight(head))) return ASK
      if (dotGit !== undefined && Either.isRight(dotGit)) {
        const gitPath = join(dir, ".git")
        if (dotGit.right.kind === "directory") {
          const [commondir] = yield* fs.statMany([join(gitPath, "commondir")])
          if (commondir !== undefined && Either.isRight(commondir)) return ASK
          return (yield* usable(gitPath, gitPath)) ? { _tag: "Found", toplevel: dir, commonDir: gitPath } : ASK
        }
        if (dotGit.right.kind !== "file") return ASK
        const named = gitdirOf((yield* text(gitPath)) ?? "")
        if (named === undefined) return ASK
        const gitDir = resolve(dir, named)
        // A linked worktree's git dir names the main repository's in `commondir`; a submodule's has none.
        const [hasCommon] = yield* fs.statMany([join(gitDir, "commondir")])
        if (hasCommon === undefined || (Either.isLeft(hasCommon) && hasCommon.left.reason !== "NotFound")) return ASK
        const common = Either.isRight(hasCommon) ? yield* text(join(gitDir, "commondir")) : ""
        if (common === undefined || (Either.isRight(hasCommon) && common.trim() === "")) return ASK
        const commonDir = common.trim() === "" ? gitDir : resolve(gitDir, common.trim())
        return (yield* usable(gitDir, commonDir)) ? { _tag: "Found", toplevel: dir, commonDir } : ASK
      }
      if (dotGit === undefined || (Either.isLeft(dotGit) && dotGit.left.reason !== "NotFound")) return ASK
      const parent = dirname(dir)
      if (parent === dir) return NONE
      dir = parent
    }
    return ASK
  })
