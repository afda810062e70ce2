/** ProjectLocator on real git repositories and real folders (DECISIONS D2-D4). */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach } from "vitest"
import { ConfigService } from "../../layers/project/ConfigService.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { ProjectLocator } from "../../layers/project/ProjectLocator.ts"
import { projectKeyOf } from "../../src/project/projectKey.ts"
import { git, gitRepo, linkedWorktree, tempAgent, tempDir } from "../support/tmp.ts"

const sha24 = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 24)

const locatorLayer = (agentDir: string, home: string) =>
  ProjectLocator.layer.pipe(Layer.provideMerge(ConfigService.layerWith({ agentDir, home })), Layer.provideMerge(FileSystem.layer))

const locate = (agentDir: string, home: string, cwd: string) =>
  Effect.flatMap(ProjectLocator, (l) => l.locate(cwd)).pipe(Effect.provide(locatorLayer(agentDir, home)))

const rootOf = (agentDir: string, home: string, cwd: string) =>
  Effect.flatMap(ProjectLocator, (l) => l.projectRootOf(cwd)).pipe(Effect.provide(locatorLayer(agentDir, home)))

/** Two existing folders whose project keys collide (`a-b` and `a_b` both map to the same key). */
const collidingRoots = (prefix: string): readonly [string, string] => {
  const x = tempDir(prefix)
  const roots = [join(x, "a-b"), join(x, "a_b")] as const
  for (const r of roots) mkdirSync(r)
  return roots
}

const savedPath = process.env["PATH"]
const savedGitDir = process.env["GIT_DIR"]
afterEach(() => {
  process.env["PATH"] = savedPath
  delete process.env["GIT_TEST_ASSUME_DIFFERENT_OWNER"]
  if (savedGitDir === undefined) delete process.env["GIT_DIR"]
  else process.env["GIT_DIR"] = savedGitDir
})

describe("ProjectLocator", () => {
  it.live("finds the git root from a subdirectory and lays out the storage", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const repo = gitRepo()
      const l = yield* locate(agentDir, home, join(repo, "sub", "deeper"))
      const key = projectKeyOf(repo)
      expect(l).toMatchObject({
        projectRoot: repo,
        projectKey: key,
        projectDir: join(storageRoot, "projects", key),
        memoryDir: join(storageRoot, "projects", key, "memory"),
        storageRoot,
        memoryRootHash: sha24(realpathSync(join(storageRoot, "projects", key, "memory"))),
        legacyStatePath: join(storageRoot, "projects", key, "state.json")
      })
      expect(l.memoryRootDir).toBe(join(storageRoot, "memory-roots", l.memoryRootHash))
      expect(readFileSync(join(l.projectDir, ".project-root"), "utf8")).toBe(`${repo}\n`)
    })
  )

  it.live("ignores a GIT_DIR in the environment (as inside a git hook): the project is the repository holding cwd", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const other = gitRepo()
      process.env["GIT_DIR"] = join(other, ".git")
      expect(yield* rootOf(agentDir, home, join(repo, "sub"))).toBe(repo)
    })
  )

  it.live("gives a real linked worktree the main checkout's project and memory", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const wt = linkedWorktree(repo)
      mkdirSync(join(wt, "sub"), { recursive: true })
      expect(git(wt, "rev-parse", "--show-toplevel")).toBe(wt)
      const main = yield* locate(agentDir, home, repo)
      const fromWorktree = yield* locate(agentDir, home, join(wt, "sub"))
      expect(fromWorktree.projectRoot).toBe(repo)
      expect(fromWorktree.memoryDir).toBe(main.memoryDir)
      expect(fromWorktree.memoryRootHash).toBe(main.memoryRootHash)
    })
  )

  it.live("keeps a worktree of a repository whose git dir is not named .git on its own root", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const parent = tempDir("pm-sep-")
      const repo = join(parent, "checkout")
      mkdirSync(repo)
      git(repo, "init", "-q", "-b", "main", "--separate-git-dir", join(parent, "store.git"))
      writeFileSync(join(repo, "f"), "x")
      git(repo, "add", "f")
      git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "i")
      const wt = linkedWorktree(repo)
      expect(yield* rootOf(agentDir, home, wt)).toBe(wt)
      expect(yield* rootOf(agentDir, home, repo)).toBe(repo)
    })
  )

  it.live("uses realpath(cwd) outside git, through a symlinked path", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const base = tempDir("pm-nogit-")
      const realDir = join(base, "real", "project")
      mkdirSync(realDir, { recursive: true })
      symlinkSync(join(base, "real"), join(base, "alias"))
      const l = yield* locate(agentDir, home, join(base, "alias", "project"))
      expect(l.projectRoot).toBe(realDir)
      expect(l.projectKey).toBe(projectKeyOf(realDir))
    })
  )

  it.live("falls back to realpath(cwd) when git is not on PATH", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const sub = join(repo, "sub", "deeper")
      expect(yield* rootOf(agentDir, home, sub)).toBe(repo)
      process.env["PATH"] = join(tempDir("pm-nopath-"), "empty")
      expect(yield* rootOf(agentDir, home, sub)).toBe(sub)
      const l = yield* locate(agentDir, home, sub)
      expect(l.projectRoot).toBe(sub)
    })
  )

  it.live("fails with a typed error for a working directory that does not exist", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const error = yield* Effect.flip(locate(agentDir, home, join(tempDir(), "missing")))
      expect(error._tag).toBe("ProjectLocateError")
    })
  )

  it.live("gives the second of two colliding roots <key>-<24 hex of sha256(root)> with its own marker", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const [first, second] = collidingRoots("pm-collide-")
      const key = projectKeyOf(first)
      expect(projectKeyOf(second)).toBe(key)

      const a = yield* locate(agentDir, home, first)
      const b = yield* locate(agentDir, home, second)
      expect(a.projectKey).toBe(key)
      expect(b.projectKey).toBe(`${key}-${sha24(second)}`)
      expect(b.projectDir).toBe(join(storageRoot, "projects", `${key}-${sha24(second)}`))
      expect(readFileSync(join(a.projectDir, ".project-root"), "utf8")).toBe(`${first}\n`)
      expect(readFileSync(join(b.projectDir, ".project-root"), "utf8")).toBe(`${second}\n`)
      expect(b.memoryDir).not.toBe(a.memoryDir)
      expect(b.memoryRootHash).not.toBe(a.memoryRootHash)
      // Stable on every later call, in either order.
      expect((yield* locate(agentDir, home, second)).projectKey).toBe(b.projectKey)
      expect((yield* locate(agentDir, home, first)).projectKey).toBe(key)
    })
  )

  it.live("gives colliding roots distinct, stable keys when they claim the key at the same moment", () =>
    Effect.gen(function* () {
      const roots = collidingRoots("pm-collide-race-")
      for (let round = 0; round < 30; round++) {
        const { agentDir, home } = tempAgent()
        const all = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => Effect.map(locate(agentDir, home, roots[i % 2]!), (l) => [roots[i % 2]!, l] as const)),
          { concurrency: "unbounded" }
        )
        const keysOf = (root: string) => new Set(all.filter(([r]) => r === root).map(([, l]) => l.projectKey))
        const [k0, k1] = [keysOf(roots[0]), keysOf(roots[1])]
        expect(k0.size, `round ${round}`).toBe(1)
        expect(k1.size, `round ${round}`).toBe(1)
        expect([...k0][0]).not.toBe([...k1][0])
        for (const [root, l] of all) {
          expect(readFileSync(join(l.projectDir, ".project-root"), "utf8")).toBe(`${root}\n`)
          expect(readdirSync(l.projectDir).filter((n) => n.endsWith(".tmp"))).toEqual([])
        }
      }
    })
  // 240 locates, each asking git in a child process: 6 s on a quiet machine, over a minute at load average 17.
  , 180_000)

  it.live("fails with a typed error, writing nothing, when the collision directory is claimed by yet another root", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const [first, second] = collidingRoots("pm-collide-twice-")
      const key = projectKeyOf(first)
      yield* locate(agentDir, home, first)
      // A marker in the second root's collision directory naming a third root (tampered, or a hash collision).
      const collisionDir = join(storageRoot, "projects", `${key}-${sha24(second)}`)
      mkdirSync(collisionDir, { recursive: true })
      writeFileSync(join(collisionDir, ".project-root"), "/somewhere/else\n")
      const error = yield* Effect.flip(locate(agentDir, home, second))
      expect(error._tag).toBe("ProjectLocateError")
      expect(error.message).toContain(join(collisionDir, ".project-root"))
      expect(readFileSync(join(collisionDir, ".project-root"), "utf8")).toBe("/somewhere/else\n")
      expect(readdirSync(collisionDir)).toEqual([".project-root"])
    })
  )

  it.live("sweeps a temp file a killed claimer left in the project folder, once it is old", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const dir = tempDir("pm-sweep-")
      const projectDir = join(storageRoot, "projects", projectKeyOf(dir))
      mkdirSync(projectDir, { recursive: true })
      const old = join(projectDir, ".pm-00000000-0000-4000-8000-000000000000.tmp")
      const young = join(projectDir, ".pm-11111111-1111-4111-8111-111111111111.tmp")
      writeFileSync(old, "x")
      writeFileSync(young, "x")
      const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000
      utimesSync(old, twoHoursAgo, twoHoursAgo)
      yield* locate(agentDir, home, dir)
      expect(existsSync(old)).toBe(false)
      expect(existsSync(young)).toBe(true)
    })
  )

  it.live("a checkout owned by another user is still the project (git's ownership check would refuse it)", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const sub = join(repo, "deep", "er")
      mkdirSync(sub, { recursive: true })
      process.env["GIT_TEST_ASSUME_DIFFERENT_OWNER"] = "1"
      // Without the exception git refuses the repository outright.
      expect(() =>
        execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: sub, env: process.env, stdio: ["ignore", "pipe", "pipe"] })
      ).toThrow(/dubious ownership/)
      const l = yield* locate(agentDir, home, sub)
      expect(l.projectRoot).toBe(realpathSync(repo))
    })
  )

  it.live("a foreign checkout's config runs nothing: fsmonitor, pager, hooks and aliases stay unused", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const proof = tempDir("pm-proof-")
      const touch = (name: string) => `touch ${join(proof, name)}; false`
      git(repo, "config", "core.fsmonitor", touch("fsmonitor"))
      git(repo, "config", "core.pager", touch("pager"))
      git(repo, "config", "pager.rev-parse", touch("pager-rev-parse"))
      git(repo, "config", "alias.rev-parse", `!${touch("alias")}`)
      mkdirSync(join(repo, "hooks"))
      git(repo, "config", "core.hooksPath", join(repo, "hooks"))
      for (const hook of ["post-checkout", "post-index-change", "reference-transaction"]) {
        writeFileSync(join(repo, "hooks", hook), `#!/bin/sh\n${touch(hook)}\n`, { mode: 0o755 })
      }
      git(repo, "config", "core.sshCommand", touch("ssh"))
      process.env["GIT_TEST_ASSUME_DIFFERENT_OWNER"] = "1"
      const l = yield* locate(agentDir, home, repo)
      expect(l.projectRoot).toBe(realpathSync(repo))
      expect(readdirSync(proof)).toEqual([])
    })
  )

  it.live("claims the key with an exclusive create where hard links are not supported", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const dir = tempDir("pm-nolink-")
      const noLinks = ProjectLocator.layer.pipe(
        Layer.provideMerge(ConfigService.layerWith({ agentDir, home })),
        Layer.provideMerge(
          FileSystem.layerWith({ link: (_, path) => Effect.fail(new FsError({ op: "link", path, reason: "PermissionDenied", detail: "EPERM" })) })
        )
      )
      const l = yield* Effect.flatMap(ProjectLocator, (p) => p.locate(dir)).pipe(Effect.provide(noLinks))
      expect(l.projectKey).toBe(projectKeyOf(dir))
      expect(readFileSync(join(l.projectDir, ".project-root"), "utf8")).toBe(`${dir}\n`)
      expect(readdirSync(l.projectDir).filter((n) => n.endsWith(".tmp"))).toEqual([])
      const again = yield* Effect.flatMap(ProjectLocator, (p) => p.locate(dir)).pipe(Effect.provide(noLinks))
      expect(again.projectKey).toBe(l.projectKey)
    })
  )

  it.live("never rewrites an existing marker", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const dir = tempDir("pm-marker-")
      const a = yield* locate(agentDir, home, dir)
      const marker = join(a.projectDir, ".project-root")
      const before = readFileSync(marker, "utf8")
      yield* locate(agentDir, home, dir)
      expect(readFileSync(marker, "utf8")).toBe(before)
    })
  )

  it.live("uses autoMemoryDirectory with ~ expanded, and a symlink alias of the same directory gets the same hash", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const dir = tempDir("pm-cfg-")
      const plain = yield* locate(agentDir, home, dir)

      mkdirSync(storageRoot, { recursive: true })
      writeFileSync(join(storageRoot, "config.json"), JSON.stringify({ autoMemoryDirectory: "~/custom/mem" }))
      const custom = yield* locate(agentDir, home, dir)
      expect(custom.memoryDir).toBe(join(home, "custom", "mem"))
      expect(custom.memoryRootHash).toBe(sha24(realpathSync(join(home, "custom", "mem"))))
      expect(custom.projectKey).toBe(plain.projectKey)

      symlinkSync(plain.memoryDir, join(home, "alias"))
      writeFileSync(join(storageRoot, "config.json"), JSON.stringify({ autoMemoryDirectory: "~/alias" }))
      const alias = yield* locate(agentDir, home, dir)
      expect(alias.memoryDir).toBe(join(home, "alias"))
      expect(alias.memoryRootHash).toBe(plain.memoryRootHash)
      expect(alias.memoryRootDir).toBe(plain.memoryRootDir)
    })
  )

  it.live("ignores a relative autoMemoryDirectory and uses the default", () =>
    Effect.gen(function* () {
      const { agentDir, home, storageRoot } = tempAgent()
      const dir = tempDir("pm-rel-")
      mkdirSync(storageRoot, { recursive: true })
      writeFileSync(join(storageRoot, "config.json"), JSON.stringify({ autoMemoryDirectory: "relative/mem" }))
      const l = yield* locate(agentDir, home, dir)
      expect(l.memoryDir).toBe(join(l.projectDir, "memory"))
    })
  )
})

describe("ProjectLocator: one git process for concurrent identical queries", () => {
  /** A `git` first on PATH that logs each run, then runs the real one. */
  const countingGit = (): { readonly runs: () => number } => {
    const bin = tempDir("pm-git-bin-")
    const log = join(bin, "runs.log")
    const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho run >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 })
    process.env["PATH"] = `${bin}:${savedPath}`
    return { runs: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l === "run").length : 0) }
  }

  it.live("two locates of the same folder at once share one git run; the next locate asks again", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      // A linked worktree: a case the file system alone does not answer (layers/project/gitDiscovery.ts).
      const wt = linkedWorktree(repo)
      const counter = countingGit()
      const both = yield* Effect.flatMap(ProjectLocator, (l) =>
        Effect.all([l.locate(wt), l.locate(wt)], { concurrency: 2 })
      ).pipe(Effect.provide(locatorLayer(agentDir, home)))
      expect(both[0].projectRoot).toBe(repo)
      expect(both[1]).toStrictEqual(both[0])
      expect(counter.runs()).toBe(1)
      // Nothing is kept once the query is answered: a later locate runs git again.
      yield* locate(agentDir, home, wt)
      expect(counter.runs()).toBe(2)
    })
  )

  it.live("a plain checkout is located without starting git", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const counter = countingGit()
      expect((yield* locate(agentDir, home, join(repo, "sub"))).projectRoot).toBe(repo)
      expect(counter.runs()).toBe(0)
    })
  )

  it.live("two locates of the same folder at once make its folders once; the next locate makes them again", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const made: Array<string> = []
      const real = makeNodeFileSystem()
      const counting = FileSystem.layerWith({ makeDirectory: (path, options) => Effect.zipRight(Effect.sync(() => made.push(path)), real.makeDirectory(path, options)) })
      const layer = ProjectLocator.layer.pipe(Layer.provideMerge(ConfigService.layerWith({ agentDir, home })), Layer.provideMerge(counting))
      const one = yield* Effect.flatMap(ProjectLocator, (l) => l.locate(repo)).pipe(Effect.provide(layer))
      const once = made.length
      expect(once).toBeGreaterThan(0)
      made.length = 0
      const both = yield* Effect.flatMap(ProjectLocator, (l) => Effect.all([l.locate(repo), l.locate(repo)], { concurrency: 2 })).pipe(Effect.provide(layer))
      expect(both).toStrictEqual([one, one])
      // One locate's folders (fewer than the first time: the project's marker is in place now), not two.
      const concurrent = made.length
      made.length = 0
      yield* Effect.flatMap(ProjectLocator, (l) => l.locate(repo)).pipe(Effect.provide(layer))
      expect(concurrent).toBe(made.length)
      expect(made.length).toBeGreaterThan(0)
    })
  )

  it.live("a locate waiting on one that is interrupted locates by itself", () =>
    Effect.gen(function* () {
      const { agentDir, home } = tempAgent()
      const repo = gitRepo()
      const gate = yield* Deferred.make<void>()
      let calls = 0
      const real = makeNodeFileSystem()
      // The first locate stops at its first folder until interrupted; the ones after it pass.
      const held = FileSystem.layerWith({
        makeDirectory: (path, options) => (calls++ === 0 ? Deferred.await(gate) : Effect.void).pipe(Effect.zipRight(real.makeDirectory(path, options)))
      })
      const layer = ProjectLocator.layer.pipe(Layer.provideMerge(ConfigService.layerWith({ agentDir, home })), Layer.provideMerge(held))
      const located = yield* Effect.flatMap(ProjectLocator, (l) =>
        Effect.gen(function* () {
          const first = yield* Effect.fork(l.locate(repo))
          while (calls === 0) yield* Effect.yieldNow()
          const second = yield* Effect.fork(l.locate(repo))
          yield* Effect.yieldNow()
          yield* Fiber.interrupt(first)
          return yield* Fiber.join(second)
        })
      ).pipe(Effect.provide(layer))
      expect(located.projectRoot).toBe(repo)
    })
  )
})
