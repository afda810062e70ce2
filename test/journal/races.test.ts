/**
 * Undo and the writer against other writers, over real files and real processes: the main agent's plain writes
 * (no lock), a foreign write landing in the few system calls between the writer's last check and its rename, writes
 * through an alias of the memory directory, and `pm undo` as a person runs it.
 */
import { Effect, Layer } from "effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
import { Journal } from "../../layers/writes/Journal.ts"
import { LockService } from "../../layers/storage/LockService.ts"
import { makeMemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { sha256Hex } from "../../src/writes/journal.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { gitRepo, tempAgent, tempDir } from "../support/tmp.ts"

/** Another process writes `content` into `path` in place (open, truncate, write), as Pi's own write tool does. */
const foreignWrite = (path: string, content: string): void => {
  execFileSync(process.execPath, ["-e", `require("node:fs").writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(content)})`])
}

const real = makeNodeFileSystem()

/** The real file system, with `hook` run once right before the first rename onto a path ending in `suffix`. */
const beforeRenameOnto = (suffix: string, hook: () => void): FileSystemShape => {
  let fired = false
  return {
    ...real,
    rename: (from, to) =>
      Effect.suspend(() => {
        if (!fired && to.endsWith(suffix) && from.includes(".pm-")) {
          fired = true
          hook()
        }
        return real.rename(from, to)
      })
  }
}

/** The real file system, with `hook` run once right before the writer gives `suffix` its second name (a hard link). */
const beforeBackupOf = (suffix: string, hook: () => void): FileSystemShape => {
  let fired = false
  return {
    ...real,
    link: (existing, newPath) =>
      Effect.suspend(() => {
        if (!fired && existing.endsWith(suffix) && newPath.includes(".pm-")) {
          fired = true
          hook()
        }
        return real.link(existing, newPath)
      })
  }
}

const journalWith = (fs: FileSystemShape) =>
  Effect.runSync(Effect.map(Journal, (j) => j).pipe(Effect.provide(Journal.layer.pipe(Layer.provide(LockService.layer), Layer.provide(Layer.succeed(FileSystem, fs))))))

const setup = () => {
  const base = tempDir("pm-races-")
  const memoryDir = join(base, "memory")
  const rootDir = join(base, "root")
  mkdirSync(memoryDir)
  mkdirSync(rootDir)
  return { base, memoryDir, rootDir }
}

/** A task of the real writer that reads then rewrites `file`, journaled as `task`. */
const rewrite = (fs: FileSystemShape, env: ReturnType<typeof setup>, task: string, file: string, content: string, memoryDir = env.memoryDir) =>
  Effect.gen(function*() {
    const journal = journalWith(fs)
    const handle = yield* makeMemoryWriter(fs).openTask({
      memoryDir,
      cwd: memoryDir,
      journal: journal.forWriter({ rootDir: env.rootDir }, { task, kind: "extract", session: null, model: null })
    })
    const path = join(memoryDir, file)
    if (existsSync(path)) {
      yield* handle.recordRead(path, { kind: "text", truncated: false }, { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs })
    }
    return yield* handle.write(path, content)
  })

describe("undo is a compare-and-swap per file", () => {
  it("a main-agent write landing between undo's check and its rename wins: the file is left alone and reported", async () => {
    const env = setup()
    const a = join(env.memoryDir, "a.md")
    writeFileSync(a, "A1\n")
    await Effect.runPromise(rewrite(real, env, "t1", "a.md", "A2\n"))
    // Between the writer's last read of a.md and the rename that restores it, another process writes a.md in place.
    const racing = beforeRenameOnto("/a.md", () => foreignWrite(a, "A3 by the main agent\n"))
    const result = await Effect.runPromise(journalWith(racing).undo({ rootDir: env.rootDir, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(readFileSync(a, "utf8")).toBe("A3 by the main agent\n")
    expect(result.files).toEqual([{ file: "a.md", outcome: "left", reason: expect.stringContaining("changed after this task") }])
    // The undo's own change is journaled as not published, so nothing claims the agent's write.
    const log = await Effect.runPromise(journalWith(real).read({ rootDir: env.rootDir }))
    expect(log.entries[0]!.changes.map((c) => [c.file, c.status])).toEqual([["a.md", "failed"]])
  })

  it("a main-agent write landing after undo's plan and before the writer reads the file: checked again, left alone", async () => {
    const env = setup()
    const a = join(env.memoryDir, "a.md")
    writeFileSync(a, "A1\n")
    await Effect.runPromise(rewrite(real, env, "t1", "a.md", "A2\n"))
    const racing = beforeBackupOf("/a.md", () => foreignWrite(a, "A3 by the main agent\n"))
    const result = await Effect.runPromise(journalWith(racing).undo({ rootDir: env.rootDir, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(readFileSync(a, "utf8")).toBe("A3 by the main agent\n")
    expect(result.files).toEqual([{ file: "a.md", outcome: "left", reason: expect.stringContaining("changed after this task") }])
  })

  it("a task write racing a foreign write: the foreign bytes stay, the write fails as stale, the journal blames no one", async () => {
    const env = setup()
    const a = join(env.memoryDir, "a.md")
    writeFileSync(a, "A1\n")
    await Effect.runPromise(rewrite(real, env, "t0", "a.md", "A2\n"))
    const racing = beforeRenameOnto("/a.md", () => foreignWrite(a, "A-foreign\n"))
    const exit = await Effect.runPromise(Effect.either(rewrite(racing, env, "t1", "a.md", "A-task\n")))
    expect(exit).toMatchObject({ _tag: "Left", left: { _tag: "StaleBaseline" } })
    expect(readFileSync(a, "utf8")).toBe("A-foreign\n")
    const log = await Effect.runPromise(journalWith(real).read({ rootDir: env.rootDir }))
    expect(log.entries.map((e) => [e.task, e.changes.map((c) => c.status)])).toEqual([["t1", ["failed"]], ["t0", ["done"]]])
    // Undo passes over t1 (it changed no bytes) and refuses t0's file, which someone else has changed since.
    const result = await Effect.runPromise(journalWith(real).undo({ rootDir: env.rootDir, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(result.task).toBe("t0")
    expect(result.files).toEqual([{ file: "a.md", outcome: "left", reason: expect.stringContaining("changed after") }])
    expect(readFileSync(a, "utf8")).toBe("A-foreign\n")
  })

  it("a write through an alias of the memory directory, or its real path, is journaled under the real path and undone", async () => {
    const env = setup()
    const alias = join(env.base, "alias")
    symlinkSync(env.memoryDir, alias)
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    // The task knows memory by its alias and writes once through each spelling.
    await Effect.runPromise(rewrite(real, env, "t1", "a.md", "A2\n", alias))
    const handle = await Effect.runPromise(makeMemoryWriter(real).openTask({
      memoryDir: alias,
      cwd: alias,
      journal: journalWith(real).forWriter({ rootDir: env.rootDir }, { task: "t1", kind: "extract", session: null, model: null })
    }))
    await Effect.runPromise(handle.write(join(env.memoryDir, "sub", "b.md"), "B\n"))
    const log = await Effect.runPromise(journalWith(real).read({ rootDir: env.rootDir }))
    expect(log.entries[0]!.changes.map((c) => [c.file, c.op, c.status])).toEqual([["a.md", "update", "done"], ["sub/b.md", "create", "done"]])
    const result = await Effect.runPromise(journalWith(real).undo({ rootDir: env.rootDir, memoryDir: alias }, { session: null, model: null }))
    expect(result.files.map((f) => [f.file, f.outcome])).toEqual([["a.md", "restored"], ["sub/b.md", "deleted"]])
    expect(readFileSync(join(env.memoryDir, "a.md"), "utf8")).toBe("A1\n")
    expect(existsSync(join(env.memoryDir, "sub", "b.md"))).toBe(false)
  })

  it("a damaged blob is never restored: the file is left alone with the reason", async () => {
    const env = setup()
    writeFileSync(join(env.memoryDir, "a.md"), "A1\n")
    await Effect.runPromise(rewrite(real, env, "t1", "a.md", "A2\n"))
    writeFileSync(join(env.rootDir, "journal", "blobs", sha256Hex("A1\n")), "tampered\n")
    const result = await Effect.runPromise(journalWith(real).undo({ rootDir: env.rootDir, memoryDir: env.memoryDir }, { session: null, model: null }))
    expect(result.files).toEqual([{ file: "a.md", outcome: "left", reason: expect.stringContaining("no longer kept") }])
    expect(readFileSync(join(env.memoryDir, "a.md"), "utf8")).toBe("A2\n")
  })
})

// ---------------------------------------------------------------------------------------------------------------
// `pm` itself, in real processes.

describe("pm undo and pm forget (real processes)", () => {
  beforeAll(() => ensureBuilt())

  const project = async () => {
    const agent = tempAgent()
    const repo = gitRepo()
    const r = await runPm(["project", "--json", "--cwd", repo], agent)
    expect(r.code).toBe(0)
    const p = JSON.parse(r.stdout) as Record<string, string>
    const memoryDir = p["memoryDir"]!
    mkdirSync(memoryDir, { recursive: true })
    return { ...agent, repo, memoryDir, rootDir: join(p["storageRoot"]!, "memory-roots", p["memoryRootHash"]!) }
  }
  const topic = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${body}\n`

  it("undo waiting for journal.lock while the main agent rewrites a file: the newer write stays, --to gets the old bytes", async () => {
    const s = await project()
    writeFileSync(join(s.memoryDir, "build.md"), topic("Build", "npm test"))
    writeFileSync(join(s.memoryDir, "notes.md"), topic("Notes", "tabs"))
    writeFileSync(join(s.memoryDir, "MEMORY.md"), "- [Build](build.md) - b\n- [Notes](notes.md) - n\n")
    const oldBuild = readFileSync(join(s.memoryDir, "build.md"))
    expect((await runPm(["forget", "build", "notes", "--cwd", s.repo], s)).code).toBe(0)
    // This test holds journal.lock; undo starts and waits; the main agent writes build.md (no lock); the lock goes.
    const scope = Effect.runSync(Scope.make())
    const held = await Effect.runPromise(
      Effect.flatMap(LockService, (locks) => locks.acquire(join(s.rootDir, "locks"), "journal.lock")).pipe(
        Scope.extend(scope),
        Effect.provide(LockService.layer.pipe(Layer.provide(FileSystem.layer)))
      )
    )
    expect(held._tag).toBe("Acquired")
    const undo = runPm(["undo", "--cwd", s.repo], s)
    writeFileSync(join(s.memoryDir, "build.md"), "the main agent's new build notes\n")
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const r = await undo
    expect(r.code).toBe(1)
    expect(readFileSync(join(s.memoryDir, "build.md"), "utf8")).toBe("the main agent's new build notes\n")
    expect(readFileSync(join(s.memoryDir, "notes.md"), "utf8")).toBe(topic("Notes", "tabs"))
    const task = /^Undid (forget-\S+):/.exec(r.stdout)?.[1]
    expect(task).toBeDefined()
    expect(r.stdout).toContain("  left alone build.md: it was created again after this task")
    expect(r.stdout).toContain("  restored   notes.md")
    expect(r.stdout).toContain("  restored   MEMORY.md")
    expect(r.stdout).toContain(`pm undo ${task} --to DIR`)
    const out = join(tempDir("pm-undo-to-"), "old")
    const exported = await runPm(["undo", task!, "--to", out, "--cwd", s.repo], s)
    expect(exported.code).toBe(0)
    expect(readFileSync(join(out, "build.md")).equals(oldBuild)).toBe(true)
    expect(readFileSync(join(s.memoryDir, "build.md"), "utf8")).toBe("the main agent's new build notes\n")
    // Nothing else is left to undo: the forget was undone (as far as it could be).
    expect((await runPm(["undo", "--cwd", s.repo], s)).stderr).toContain("nothing to undo")
  })

  const bigTopic = (bytes: number): Buffer => {
    const head = Buffer.from(topic("Big", "a large topic"))
    const body = Buffer.alloc(bytes - head.length)
    for (let i = 0; i < body.length; i++) body[i] = 0x61 + ((i * 7919) % 26)
    for (let i = 4096; i < body.length; i += 4096) body[i] = 0x0a
    return Buffer.concat([head, body])
  }

  for (const [label, bytes] of [["5 MB", 5_000_067], ["50 MB", 50_000_000]] as const) {
    it(`pm forget then pm undo of a ${label} topic brings back every byte and the file's mode`, async () => {
      const s = await project()
      const content = bigTopic(bytes)
      const path = join(s.memoryDir, "big.md")
      // Large files go through the thread pool, not the worker's event loop (held for a minute at load 30).
      await writeFile(path, content)
      chmodSync(path, 0o600)
      expect((await runPm(["forget", "big", "--cwd", s.repo], s, )).code).toBe(0)
      expect(existsSync(path)).toBe(false)
      const r = await runPm(["undo", "--cwd", s.repo], s)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("  restored   big.md")
      expect(statSync(path).size).toBe(bytes)
      expect(sha256Hex(await readFile(path))).toBe(sha256Hex(content))
      expect(statSync(path).mode & 0o777).toBe(0o600)
    })
  }
})
