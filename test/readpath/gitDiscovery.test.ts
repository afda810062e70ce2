/**
 * The repository read from the file system (layers/project/gitDiscovery.ts) against real git: in a plain checkout,
 * at its top and below it, the answer is git's own; a linked worktree, a bare repository, a folder inside `.git` and a
 * config naming another work tree are left to git ("ask"); a folder in no repository is never given one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { discoverGit } from "../../layers/project/gitDiscovery.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { git, gitRepo, linkedWorktree, tempDir } from "../support/tmp.ts"

const fs = makeNodeFileSystem()

/** What git says of `cwd`: its top level and common directory, both real paths; undefined outside a work tree. */
const gitSays = (cwd: string) => {
  try {
    const [top, common] = execFileSync("git", ["-c", "safe.directory=*", "rev-parse", "--show-toplevel", "--git-common-dir"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\n")
    return { toplevel: realpathSync(top!), commonDir: realpathSync(join(cwd, common!)) }
  } catch {
    return undefined
  }
}

describe("the repository read from the file system", () => {
  it.effect("in a plain checkout, at its top and two folders down, is what git says", () =>
    Effect.gen(function* () {
      const repo = realpathSync(gitRepo())
      const deep = join(repo, "a", "b")
      mkdirSync(deep, { recursive: true })
      for (const cwd of [repo, deep]) {
        const found = yield* discoverGit(fs, cwd)
        expect(found).toEqual({ toplevel: repo, commonDir: join(repo, ".git") })
        expect(found).toEqual(gitSays(cwd))
      }
    }))

  it.effect("leaves a linked worktree, a bare repository and a folder inside .git to git", () =>
    Effect.gen(function* () {
      const repo = realpathSync(gitRepo())
      const worktree = realpathSync(linkedWorktree(repo))
      const bare = join(realpathSync(tempDir("pm-bare-")), "b.git")
      execFileSync("git", ["init", "-q", "--bare", bare])
      expect(yield* discoverGit(fs, worktree)).toBe("ask")
      expect(yield* discoverGit(fs, bare)).toBe("ask")
      expect(yield* discoverGit(fs, join(repo, ".git", "refs"))).toBe("ask")
    }))

  it.effect("leaves to git a checkout whose config names another work tree", () =>
    Effect.gen(function* () {
      const repo = realpathSync(gitRepo())
      git(repo, "config", "core.worktree", tempDir("pm-elsewhere-"))
      expect(yield* discoverGit(fs, repo)).toBe("ask")
    }))

  it.effect("gives no repository to a folder outside every repository", () =>
    Effect.gen(function* () {
      const plain = realpathSync(tempDir("pm-plain-"))
      const found = yield* discoverGit(fs, plain)
      // "none" when the climb reached the root on one file system; "ask" when it met another one on the way.
      expect(["none", "ask"]).toContain(found)
      if (found === "none") expect(gitSays(plain)).toBeUndefined()
    }))
})
