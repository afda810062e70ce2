/**
 * Finding the repository from git's own files (layers/project/gitFiles.ts), on real repositories made by real git:
 * each answer it gives is the one `git rev-parse --show-toplevel --git-common-dir` gives; what it cannot decide as git
 * would (inside a git dir, a bare repository, a config that moves the work tree, a submodule) it leaves to git; and the
 * extension's locator, built with it, places a linked worktree in its main checkout's memory without running git.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterEach } from "vitest"
import { ConfigService } from "../../layers/project/ConfigService.ts"
import { configMovesWorkTree, gitdirOf, readGitFiles } from "../../layers/project/gitFiles.ts"
import { makeProjectLocatorWith, ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { git, gitRepo, linkedWorktree, tempAgent, tempDir } from "../support/tmp.ts"

const fs = makeNodeFileSystem()
const filesOf = (cwd: string) => Effect.runPromise(readGitFiles(fs, cwd))
/** What git answers, with its common dir made absolute. */
const gitSays = (cwd: string) => {
  const [toplevel, commonDir] = git(cwd, "rev-parse", "--show-toplevel", "--git-common-dir").split("\n")
  return { _tag: "Found", toplevel, commonDir: resolve(cwd, commonDir!) }
}

const savedPath = process.env["PATH"]
afterEach(() => {
  process.env["PATH"] = savedPath
})

describe("the repository read from git's files", () => {
  it("is git's answer in a repository, its subfolder, a linked worktree and a repository with a separate git dir", async () => {
    const repo = gitRepo()
    const wt = linkedWorktree(repo)
    mkdirSync(join(wt, "inner"))
    for (const cwd of [repo, join(repo, "sub", "deeper"), wt, join(wt, "inner")]) expect(await filesOf(cwd)).toEqual(gitSays(cwd))
    const parent = tempDir("pm-sep-")
    const sep = join(parent, "checkout")
    mkdirSync(sep)
    git(sep, "init", "-q", "-b", "main", "--separate-git-dir", join(parent, "store.git"))
    expect(await filesOf(sep)).toEqual(gitSays(sep))
  })

  it("is none outside any repository, and none with no git on PATH", async () => {
    expect(await filesOf(tempDir("pm-nogit-"))).toEqual({ _tag: "None" })
    const repo = gitRepo()
    expect(await Effect.runPromise(readGitFiles(fs, repo, join(tempDir("pm-nopath-"), "empty")))).toEqual({ _tag: "None" })
  })

  it("is left to git inside a git dir, in a bare repository, when the config moves the work tree, and in a submodule", async () => {
    const repo = gitRepo()
    expect(await filesOf(join(repo, ".git", "refs"))).toEqual({ _tag: "AskGit" })
    const bare = join(tempDir("pm-bare-"), "b.git")
    execFileSync("git", ["init", "-q", "--bare", bare])
    expect(await filesOf(bare)).toEqual({ _tag: "AskGit" })
    const moved = gitRepo()
    git(moved, "config", "core.worktree", tempDir("pm-elsewhere-"))
    expect(await filesOf(join(moved, "sub"))).toEqual({ _tag: "AskGit" })
    // A submodule's git dir sets core.worktree.
    const sub = gitRepo(tempDir("pm-subsrc-"))
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
    expect(await filesOf(join(repo, "mod"))).toEqual({ _tag: "AskGit" })
  })

  it("reads a `.git` file's path and a config's work-tree settings", () => {
    expect(gitdirOf("gitdir: ../x/.git/worktrees/a\n")).toBe("../x/.git/worktrees/a")
    expect(gitdirOf("gitdir: \n")).toBeUndefined()
    expect(gitdirOf("ref: HEAD\n")).toBeUndefined()
    expect(configMovesWorkTree("[core]\n\tbare = true\n")).toBe(true)
    expect(configMovesWorkTree("[core]\n\tbare\n")).toBe(true)
    expect(configMovesWorkTree("[core]\n\tbare = false\n")).toBe(false)
    expect(configMovesWorkTree("[core]\n\tworktree = /x\n")).toBe(true)
    expect(configMovesWorkTree("[include]\n\tpath = other\n")).toBe(true)
    expect(configMovesWorkTree("[core]\n\tfilemode = true\n")).toBe(false)
  })
})

describe("the extension's locator", () => {
  it.live("gives a linked worktree its main checkout's memory and runs no git", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const wt = linkedWorktree(repo)
      mkdirSync(join(wt, "inner"))
      // A `git` first on PATH that logs each run, then runs the real one.
      const bin = tempDir("pm-git-bin-")
      const log = join(bin, "runs.log")
      const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
      writeFileSync(join(bin, "git"), `#!/bin/sh\necho run >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 })
      process.env["PATH"] = `${bin}:${savedPath}`
      const layer = Layer.effect(ProjectLocator, makeProjectLocatorWith({ readGitFiles: true })).pipe(
        Layer.provideMerge(ConfigService.layerWith({ agentDir, home })),
        Layer.provideMerge(FileSystem.layer)
      )
      const [main, fromWorktree] = yield* Effect.flatMap(ProjectLocator, (l) => Effect.all([l.locate(repo), l.locate(join(wt, "inner"))])).pipe(Effect.provide(layer))
      expect(fromWorktree.projectRoot).toBe(repo)
      expect(fromWorktree.memoryDir).toBe(main.memoryDir)
      expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("")
    })
  )
})
