/** MemoryStore on real files: the index window and backfill, the topic scan, the recall reader and lint. */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Exit, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { MemoryStore } from "../../layers/memory/MemoryStore.ts"
import { FRONTMATTER_MAX_BYTES, INDEX_TRUNCATION_WARNING, RECALL_MAX_BYTES, SCAN_CONCURRENCY, SCAN_MAX_TOPICS } from "../../src/limits.ts"
import { isRoot, tempDir, topicText, writeFileAt, writeTopics } from "../support/tmp.ts"

const storeWith = (overrides: Partial<FileSystemShape>) => MemoryStore.layer.pipe(Layer.provide(FileSystem.layerWith(overrides)))
const withStore = <A, E>(overrides: Partial<FileSystemShape>, f: (s: MemoryStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(MemoryStore, f).pipe(Effect.provide(storeWith(overrides)))

const tempFiles = (dir: string): ReadonlyArray<string> => readdirSync(dir).filter((n) => n.endsWith(".tmp"))

const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path])
}

// Live services: the clock is real (one test slows reads down to watch the concurrency) and the files are real.
layer(MemoryStore.layer.pipe(Layer.provide(FileSystem.layer)), { excludeTestServices: true })("MemoryStore", (it) => {
  describe("readIndex", () => {
    it.effect("returns the trimmed index when MEMORY.md exists", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "MEMORY.md"), "\n\n- [A](a.md) - hook\n\n")
        const index = yield* (yield* MemoryStore).readIndex(dir)
        expect(index).toMatchObject({ text: "- [A](a.md) - hook", exists: true, backfilled: false, lines: 1, truncated: false })
      })
    )

    it.effect("applies the window with the truncation warning", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "MEMORY.md"), "- [项](a.md)\n".repeat(250))
        const index = yield* (yield* MemoryStore).readIndex(dir)
        expect(index).toMatchObject({ lines: 200, truncated: true, exists: true })
        expect(index.text).toContain(INDEX_TRUNCATION_WARNING)
      })
    )

    it.effect("returns '' for a dangling symlink and does not backfill through it", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        symlinkSync(join(dir, "nowhere", "target.md"), join(dir, "MEMORY.md"))
        const store = yield* MemoryStore
        const index = yield* store.readIndex(dir)
        expect(index.text).toBe("")
        expect(index.backfilled).toBe(false)
        expect(lstatSync(join(dir, "MEMORY.md")).isSymbolicLink()).toBe(true)
        expect(existsSync(join(dir, "nowhere"))).toBe(false)
        const direct = yield* Effect.exit(store.readIndexFile(dir))
        expect(Exit.isFailure(direct)).toBe(true)
        expect(JSON.stringify(direct)).toContain("IndexReadError")
      })
    )

    it.effect("returns '' for a directory named MEMORY.md", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 2)
        mkdirSync(join(dir, "MEMORY.md"))
        const store = yield* MemoryStore
        expect((yield* store.readIndex(dir)).text).toBe("")
        const direct = yield* Effect.flip(store.readIndexFile(dir))
        expect(direct._tag).toBe("IndexReadError")
        expect(direct.reason).toBe("a directory")
      })
    )

    it.effect("returns '' at once for a FIFO named MEMORY.md (never blocks on open)", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        mkfifo(join(dir, "MEMORY.md"))
        // No writer ever opens the FIFO: a blocking open would never return, and the test would fail on the
        // runner's timeout. That it returns at all is the check; no clock is needed.
        const index = yield* (yield* MemoryStore).readIndex(dir)
        expect(index.text).toBe("")
      })
    )

    it.effect("returns '' for a MEMORY.md symlink loop", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        symlinkSync("MEMORY.md", join(dir, "MEMORY.md"))
        expect((yield* (yield* MemoryStore).readIndex(dir)).text).toBe("")
      })
    )

    it.effect.skipIf(isRoot())("returns '' for a MEMORY.md without read permission (non-root only)", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "MEMORY.md"), "- [A](a.md)\n")
        chmodSync(join(dir, "MEMORY.md"), 0o000)
        expect((yield* (yield* MemoryStore).readIndex(dir)).text).toBe("")
      })
    )

    it.effect("returns '' and keeps the file when the read fails with permission denied (injected: tests may run as root)", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 2)
        writeFileAt(join(dir, "MEMORY.md"), "- [A](a.md)\n")
        const index = yield* withStore(
          {
            readRegularFile: (path) =>
              Effect.fail(new FsError({ op: "open", path, reason: "PermissionDenied", detail: "EACCES" }))
          },
          (s) => s.readIndex(dir)
        )
        expect(index.text).toBe("")
        expect(index.backfilled).toBe(false)
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe("- [A](a.md)\n")
      })
    )
  })

  describe("backfill", () => {
    it.effect("creates MEMORY.md from the topics, newest first, when it is missing", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const topics = writeTopics(dir, 5)
        const store = yield* MemoryStore
        const index = yield* store.readIndex(dir)
        expect(index).toMatchObject({ exists: true, backfilled: true, lines: 5, truncated: false })
        const onDisk = readFileSync(join(dir, "MEMORY.md"), "utf8")
        const order = [...topics].reverse().map((t) => t.filename)
        expect(onDisk.trimEnd().split("\n").map((l) => /\(([^)]+)\)/.exec(l)?.[1])).toEqual(order)
        expect(onDisk).toContain("- [Topic 4](topic-n0004.md) - What topic 4 is about")
        expect(tempFiles(dir)).toEqual([])
        // Second read: the file exists now.
        expect(yield* store.readIndex(dir)).toMatchObject({ backfilled: false, exists: true, lines: 5 })
      })
    )

    it.effect("creates nothing when there are no topics", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const index = yield* (yield* MemoryStore).readIndex(dir)
        expect(index).toMatchObject({ text: "", exists: false, backfilled: false })
        expect(existsSync(join(dir, "MEMORY.md"))).toBe(false)
      })
    )

    it.effect("limits the backfill to 160 lines", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 170)
        const index = yield* (yield* MemoryStore).readIndex(dir)
        expect(index.lines).toBe(160)
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8").trimEnd().split("\n")).toHaveLength(160)
        // The newest 160: topic 10..169.
        expect(index.text).toContain("(topic-n0169.md)")
        expect(index.text).toContain("(topic-n0010.md)")
        expect(index.text).not.toContain("(topic-n0009.md)")
      })
    )

    it.effect("never clobbers an index a racing writer creates between the scan and the backfill", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        const racer = "- [Racer](racer.md) - written by someone else\n"
        const real = FileSystem.layer
        const base = yield* Effect.provide(FileSystem, real)
        const index = yield* withStore(
          {
            link: (existing, newPath) =>
              Effect.sync(() => writeFileSync(newPath, racer, { flag: "wx" })).pipe(Effect.zipRight(base.link(existing, newPath)))
          },
          (s) => s.readIndex(dir)
        )
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(racer)
        expect(index.text).toBe(racer.trim())
        // The index on disk is the racer's: this call did not create it.
        expect(index).toMatchObject({ exists: true, backfilled: false })
        expect(tempFiles(dir)).toEqual([])
      })
    )

    it.effect("reads an index another process published between its failed read and its check", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        const racer = "- [Racer](racer.md)\n"
        const base = yield* Effect.provide(FileSystem, FileSystem.layer)
        let first = true
        const index = yield* withStore(
          {
            readRegularFile: (path, max) => {
              if (path.endsWith("MEMORY.md") && first) {
                first = false
                // Our read misses the file; the racer publishes it right after.
                return Effect.sync(() => writeFileSync(path, racer, { flag: "wx" })).pipe(
                  Effect.zipRight(Effect.fail(new FsError({ op: "open", path, reason: "NotFound", detail: "ENOENT" })))
                )
              }
              return base.readRegularFile(path, max)
            }
          },
          (s) => s.readIndex(dir)
        )
        expect(index).toMatchObject({ text: racer.trim(), exists: true, backfilled: false, lines: 1 })
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(racer)
      })
    )

    it.effect("backfills with an exclusive create where hard links are not supported", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 2)
        const noLinks = { link: (_: string, path: string) => Effect.fail(new FsError({ op: "link", path, reason: "Unknown", detail: "ENOTSUP" })) }
        const index = yield* withStore(noLinks, (s) => s.readIndex(dir))
        expect(index).toMatchObject({ exists: true, backfilled: true, lines: 2 })
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toContain("(topic-n0001.md)")
        expect(tempFiles(dir)).toEqual([])
        // And still never clobbers: a second backfill finds the file and returns it.
        writeFileSync(join(dir, "MEMORY.md"), "- [Mine](mine.md)\n")
        const again = yield* withStore(noLinks, (s) => Effect.flatMap(s.scanTopics(dir), ({ topics }) => s.backfillIndex(dir, topics)))
        expect(again).toBe("- [Mine](mine.md)\n")
      })
    )

    it.effect("backfillIndex on an existing index returns it unchanged", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        const existing = "- [Mine](mine.md)\n"
        writeFileAt(join(dir, "MEMORY.md"), existing)
        const store = yield* MemoryStore
        const { topics } = yield* store.scanTopics(dir)
        expect(yield* store.backfillIndex(dir, topics)).toBe(existing)
        expect(readFileSync(join(dir, "MEMORY.md"), "utf8")).toBe(existing)
        expect(tempFiles(dir)).toEqual([])
      })
    )

    it.effect("fails with BackfillError for direct callers and gives readIndex '' when the write fails", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 2)
        const overrides = {
          writeFile: (path: string) => Effect.fail(new FsError({ op: "write", path, reason: "PermissionDenied", detail: "EACCES" }))
        }
        const error = yield* withStore(overrides, (s) =>
          Effect.flatMap(s.scanTopics(dir), ({ topics }) => Effect.flip(s.backfillIndex(dir, topics)))
        )
        expect(error._tag).toBe("BackfillError")
        expect(error.message).toContain("MEMORY.md")
        const index = yield* withStore(overrides, (s) => s.readIndex(dir))
        expect(index).toMatchObject({ text: "", backfilled: false })
        expect(existsSync(join(dir, "MEMORY.md"))).toBe(false)
      })
    )
  })

  describe("scanTopics", () => {
    // Run twice: reads recorded through the one-path reader (a faked readRegularFile governs the batch), and through
    // the real synchronous batch reader itself.
    for (const through of ["readRegularFile", "readHeads"] as const) {
      it.effect(`returns every one of 250 topics among hostile entries, newest first, reports the rest, and does not hang (reads through ${through})`, () =>
        Effect.gen(function* () {
          const dir = tempDir()
          const now = Date.now()
          const topics = writeTopics(dir, 250, { baseMs: now - 30 * 86_400_000, stepMs: 3_600_000 })
          // Readable hostile files, dated among the topics so some of them land in the newest 200.
          const mid = (i: number) => now - 30 * 86_400_000 + i * 3_600_000 + 1_000
          const readable: Array<{ filename: string; mtimeMs: number }> = []
          const add = (filename: string, content: string | Uint8Array, mtimeMs: number) => {
            writeFileAt(join(dir, filename), content, mtimeMs)
            readable.push({ filename, mtimeMs })
          }
          const big = Buffer.alloc(5 * 1024 * 1024, "x")
          Buffer.from(topicText({ name: "Big", description: "five megabytes" })).copy(big)
          add("big.md", big, mid(240))
          add("binary.md", Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256), mid(239))
          add("crlf.md", "---\r\nname: CRLF\r\ndescription: windows\r\n---\r\nbody\r\n", mid(238))
          add("bom.md", "\uFEFF---\nname: BOM\ndescription: bom\n---\n", mid(237))
          add("unclosed.md", "---\nname: x\n", mid(236))
          add("scalar.md", "---\njust text\n---\n", mid(235))
          add("list.md", "---\n- a\n---\n", mid(234))
          add("dupes.md", "---\nname: a\nname: b\n---\n", mid(233))
          add("js.md", "---js\n({ name: (globalThis.__pmScanEvaluated = 1, 'x') })\n---\n", mid(232))
          add("nul.md", "---\nname: NUL\ndescription: has a NUL\n---\nbefore\u0000after\n", mid(231))
          add("sub/nested.md", topicText({ name: "Nested", description: "in a folder" }), mid(230))
          add("old-hostile.md", "---\n: : :\n---\n", mid(0) - 3_600_000)
          // Never read: FIFO, dangling symlink, a directory named x.md, a symlink loop, VCS folders, MEMORY.md.
          mkfifo(join(dir, "fifo.md"))
          symlinkSync(join(dir, "missing-target.md"), join(dir, "dangling.md"))
          mkdirSync(join(dir, "x.md"))
          symlinkSync(dir, join(dir, "loop"))
          symlinkSync("..", join(dir, "sub", "up"))
          writeFileAt(join(dir, ".git", "inside-git.md"), topicText({ name: "git" }), now)
          writeFileAt(join(dir, ".jj", "inside-jj.md"), topicText({ name: "jj" }), now)
          writeFileAt(join(dir, "MEMORY.md"), "- [A](a.md)\n", now)
          writeFileAt(join(dir, "notes.txt"), "not markdown", now)

          // Not hanging and not reading whole files are checked by what the scan asks of the file system, not by a
          // clock (bench/scan.ts has the figures): each file is opened once, through the non-blocking reader, for at
          // most the frontmatter window, and the FIFO, MEMORY.md and the VCS folders are never opened.
          const real = yield* Effect.provide(FileSystem, FileSystem.layer)
          const reads: Array<{ readonly file: string; readonly maxBytes: number | undefined }> = []
          const result = yield* withStore(
            through === "readRegularFile"
              ? {
                readRegularFile: (path, maxBytes) => {
                  reads.push({ file: path.slice(dir.length + 1), maxBytes })
                  return real.readRegularFile(path, maxBytes)
                }
              }
              : {
                readHeads: (paths, maxBytes) => {
                  for (const path of paths) reads.push({ file: path.slice(dir.length + 1), maxBytes })
                  return real.readHeads(paths, maxBytes)
                }
              },
            (s) => s.scanTopics(dir)
          )
          expect(reads.every((r) => r.maxBytes === FRONTMATTER_MAX_BYTES)).toBe(true)
          const opened = reads.map((r) => r.file)
          expect(new Set(opened).size).toBe(opened.length)
          for (const never of ["fifo.md", "MEMORY.md", ".git/inside-git.md", ".jj/inside-jj.md", "notes.txt", "x.md"]) {
            expect(opened, never).not.toContain(never)
          }

          const all = [...topics, ...readable].sort((a, b) => b.mtimeMs - a.mtimeMs)
          const expected = all.map((t) => t.filename)
          expect(result.topics.map((t) => t.filename)).toEqual(expected)
          expect(expected.length).toBeGreaterThan(SCAN_MAX_TOPICS)
          expect(expected).toContain("big.md")
          expect(expected).toContain("sub/nested.md")
          expect(expected).toContain("old-hostile.md")

          const skipped = new Map(result.skipped.map((s) => [s.filename, s.reason]))
          expect(skipped.get("fifo.md")).toMatch(/not a regular file/)
          expect(skipped.get("dangling.md")).toMatch(/dangling/)
          expect(skipped.get("x.md")).toMatch(/directory/)
          expect(result.skipped).toHaveLength(3)
          for (const name of ["MEMORY.md", ".git/inside-git.md", ".jj/inside-jj.md", "notes.txt"]) {
            expect(result.topics.map((t) => t.filename)).not.toContain(name)
            expect(skipped.has(name)).toBe(false)
          }
          // The loop was walked once: no topic appears twice or under loop/.
          const names = result.topics.map((t) => t.filename)
          expect(new Set(names).size).toBe(names.length)
          expect(names.some((n) => n.startsWith("loop/") || n.includes("/up/"))).toBe(false)

          const byName = new Map(result.topics.map((t) => [t.filename, t]))
          expect(byName.get("big.md")).toMatchObject({ name: "Big", description: "five megabytes" })
          expect(byName.get("crlf.md")).toMatchObject({ name: "CRLF", description: "windows" })
          expect(byName.get("bom.md")).toMatchObject({ name: "BOM" })
          expect(byName.get("nul.md")).toMatchObject({ name: "NUL", description: "has a NUL" })
          expect(byName.get("unclosed.md")?.headerProblem).toMatch(/not closed/)
          expect(byName.get("scalar.md")?.headerProblem).toMatch(/mapping/)
          expect(byName.get("list.md")?.headerProblem).toMatch(/mapping/)
          expect(byName.get("dupes.md")?.headerProblem).toMatch(/YAML/)
          expect(byName.get("js.md")?.headerProblem).toMatch(/other than YAML/)
          expect(byName.get("binary.md")?.name).toBeUndefined()
          expect((globalThis as { __pmScanEvaluated?: number }).__pmScanEvaluated).toBeUndefined()
          // Newest first by file mtime.
          const mtimes = result.topics.map((t) => t.fileMtimeMs)
          expect([...mtimes].sort((a, b) => b - a)).toEqual(mtimes)
        })
      , 30_000)
    }

    it.effect("keeps every topic past 200: the oldest of 201 is scanned, nothing is reported as older", () =>
      Effect.gen(function* () {
        const at = tempDir()
        writeTopics(at, SCAN_MAX_TOPICS)
        const r200 = yield* (yield* MemoryStore).scanTopics(at)
        expect(r200.topics).toHaveLength(200)
        expect(r200.skipped).toEqual([])
        const over = tempDir()
        writeTopics(over, SCAN_MAX_TOPICS + 1)
        const r201 = yield* (yield* MemoryStore).scanTopics(over)
        expect(r201.topics).toHaveLength(201)
        expect(r201.topics.at(-1)?.filename).toBe("topic-n0000.md")
        expect(r201.skipped).toEqual([])
      })
    )

    it.effect("takes a valid modified from the header for the catalog and falls back to the file mtime", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const fileMtime = Date.parse("2025-01-01T00:00:00Z")
        writeFileAt(join(dir, "dated.md"), "---\nname: d\nmodified: 2023-02-03T04:05:06Z\n---\n", fileMtime)
        writeFileAt(join(dir, "baddate.md"), "---\nname: b\nmodified: someday\n---\n", fileMtime - 1000)
        writeFileAt(join(dir, "numdate.md"), "---\nname: n\nmodified: 12\n---\n", fileMtime - 2000)
        const { topics } = yield* (yield* MemoryStore).scanTopics(dir)
        const by = new Map(topics.map((t) => [t.filename, t]))
        expect(by.get("dated.md")).toMatchObject({ mtimeMs: Date.parse("2023-02-03T04:05:06Z"), fileMtimeMs: fileMtime })
        expect(by.get("baddate.md")).toMatchObject({ mtimeMs: fileMtime - 1000 })
        expect(by.get("numdate.md")).toMatchObject({ mtimeMs: fileMtime - 2000 })
        // Sorted by file mtime, not by the header date.
        expect(topics.map((t) => t.filename)).toEqual(["dated.md", "baddate.md", "numdate.md"])
      })
    )

    it.effect("reads frontmatter from the first 30 lines only", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const fields = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: 项目 ${i}`).join("\n")
        // Fence on line 30: inside the window. Fence on line 31: outside, so the header is unclosed.
        writeFileAt(join(dir, "at.md"), `---\ndescription: at\n${fields(27)}\n---\nbody\n`)
        writeFileAt(join(dir, "over.md"), `---\ndescription: over\n${fields(28)}\n---\nbody\n`)
        const { topics } = yield* (yield* MemoryStore).scanTopics(dir)
        const by = new Map(topics.map((t) => [t.filename, t]))
        expect(by.get("at.md")).toMatchObject({ description: "at", headerProblem: undefined })
        expect(by.get("over.md")?.description).toBeUndefined()
        expect(by.get("over.md")?.headerProblem).toMatch(/not closed/)
      })
    )

    it.effect("reads frontmatter from the first 65,536 bytes only (multi-byte description)", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        // "---\ndescription: " + value + "\n---" ends exactly at byte 65,536 for `at`, one byte later for `over`.
        const make = (end: number) => {
          const head = "---\ndescription: "
          const tail = "\n---"
          const room = end - Buffer.byteLength(head) - Buffer.byteLength(tail)
          const value = "项".repeat(Math.floor(room / 3)) + "a".repeat(room % 3)
          const text = `${head}${value}${tail}\nbody\n`
          expect(Buffer.byteLength(`${head}${value}${tail}`)).toBe(end)
          return text
        }
        writeFileAt(join(dir, "at.md"), make(65_536))
        writeFileAt(join(dir, "over.md"), make(65_537))
        const { topics } = yield* (yield* MemoryStore).scanTopics(dir)
        const by = new Map(topics.map((t) => [t.filename, t]))
        expect(by.get("at.md")?.headerProblem).toBeUndefined()
        expect(by.get("at.md")?.description?.startsWith("项项")).toBe(true)
        expect(by.get("over.md")?.headerProblem).toMatch(/not closed/)
      })
    )

    it.effect("gives [] for a missing root, a file as root, and a root that cannot be listed", () =>
      Effect.gen(function* () {
        const store = yield* MemoryStore
        const dir = tempDir()
        expect(yield* store.scanTopics(join(dir, "missing"))).toEqual({ topics: [], skipped: [] })
        writeFileAt(join(dir, "file"), "x")
        expect(yield* store.scanTopics(join(dir, "file"))).toEqual({ topics: [], skipped: [] })
        writeTopics(join(dir, "mem"), 3)
        const denied = yield* withStore(
          { readDirectory: (path) => Effect.fail(new FsError({ op: "readdir", path, reason: "PermissionDenied", detail: "EACCES" })) },
          (s) => s.scanTopics(join(dir, "mem"))
        )
        expect(denied).toEqual({ topics: [], skipped: [] })
        const index = yield* withStore(
          { readDirectory: (path) => Effect.fail(new FsError({ op: "readdir", path, reason: "PermissionDenied", detail: "EACCES" })) },
          (s) => s.readIndex(join(dir, "mem"))
        )
        expect(index.text).toBe("")
      })
    )

    it.effect("skips and reports an unreadable file or subfolder and keeps the rest", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 3)
        writeTopics(join(dir, "locked"), 2, { prefix: "inner" })
        const real = yield* Effect.provide(FileSystem, FileSystem.layer)
        const result = yield* withStore(
          {
            readRegularFile: (path, max) =>
              path.endsWith("topic-n0001.md")
                ? Effect.fail(new FsError({ op: "open", path, reason: "PermissionDenied", detail: "EACCES" }))
                : real.readRegularFile(path, max),
            readDirectory: (path) =>
              path.endsWith("locked")
                ? Effect.fail(new FsError({ op: "readdir", path, reason: "PermissionDenied", detail: "EACCES" }))
                : real.readDirectory(path)
          },
          (s) => s.scanTopics(dir)
        )
        expect(result.topics.map((t) => t.filename)).toEqual(["topic-n0002.md", "topic-n0000.md"])
        expect(result.skipped).toEqual([
          { filename: "locked/", reason: "permission denied" },
          { filename: "topic-n0001.md", reason: "permission denied" }
        ])
      })
    )

    it.effect("a faked one-path reader (the batch form runs through it) is called for at most 16 files at once", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 80)
        const real = yield* Effect.provide(FileSystem, FileSystem.layer)
        let open = 0
        let peak = 0
        const result = yield* withStore(
          {
            readRegularFile: (path, max) =>
              Effect.acquireUseRelease(
                Effect.sync(() => {
                  open++
                  peak = Math.max(peak, open)
                }),
                () => Effect.zipRight(Effect.sleep("2 millis"), real.readRegularFile(path, max)),
                () => Effect.sync(() => open--)
              )
          },
          (s) => s.scanTopics(dir)
        )
        expect(result.topics).toHaveLength(80)
        expect(peak).toBe(SCAN_CONCURRENCY)
      })
    )

    it.effect("follows a symlinked memory directory and symlinked topics", () =>
      Effect.gen(function* () {
        const base = tempDir()
        const realDir = join(base, "real")
        writeTopics(realDir, 3)
        writeFileAt(join(base, "elsewhere", "linked-topic.md"), topicText({ name: "Linked", description: "via link" }))
        symlinkSync(join(base, "elsewhere", "linked-topic.md"), join(realDir, "linked.md"))
        symlinkSync(realDir, join(base, "alias"))
        const store = yield* MemoryStore
        const viaAlias = yield* store.scanTopics(join(base, "alias"))
        const direct = yield* store.scanTopics(realDir)
        expect(viaAlias.topics.map((t) => t.filename).sort()).toEqual(["linked.md", "topic-n0000.md", "topic-n0001.md", "topic-n0002.md"])
        expect(viaAlias.topics.map((t) => t.filename)).toEqual(direct.topics.map((t) => t.filename))
        expect(viaAlias.topics.find((t) => t.filename === "linked.md")?.description).toBe("via link")
        const index = yield* store.readIndex(join(base, "alias"))
        expect(index.backfilled).toBe(true)
        expect(existsSync(join(realDir, "MEMORY.md"))).toBe(true)
      })
    )
  })

  describe("readForRecall", () => {
    it.effect("reads whole lines within 4,096 bytes and marks the rest as truncated", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const first = "😀".repeat(1024) // exactly 4,096 bytes
        writeFileAt(join(dir, "exact.md"), first)
        writeFileAt(join(dir, "more.md"), `${first}\nsecond\n`)
        writeFileAt(join(dir, "long.md"), `${first}a\nsecond\n`)
        const store = yield* MemoryStore
        expect((yield* store.readForRecall(dir, "exact.md")).window).toMatchObject({ text: first, truncated: false })
        expect((yield* store.readForRecall(dir, "more.md")).window).toMatchObject({ text: first, truncated: true })
        expect((yield* store.readForRecall(dir, "long.md")).window).toMatchObject({ text: "", truncated: true })
        const short = yield* store.readForRecall(dir, "exact.md")
        expect(short.path).toBe(join(dir, "exact.md"))
        expect(RECALL_MAX_BYTES).toBe(4096)
      })
    )

    it.effect("fails with TopicReadError for a missing file, a FIFO or a directory, without blocking", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        mkfifo(join(dir, "fifo.md"))
        mkdirSync(join(dir, "d.md"))
        const store = yield* MemoryStore
        for (const name of ["missing.md", "fifo.md", "d.md"]) {
          const error = yield* Effect.flip(store.readForRecall(dir, name))
          expect(error._tag).toBe("TopicReadError")
          expect(error.filename).toBe(name)
        }
      })
    )
  })

  describe("lint", () => {
    it.effect("lints every topic and the index, including links to missing topics", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "good.md"), topicText({ name: "G", description: "good", type: "user" }))
        writeFileAt(join(dir, "notes-2.md"), topicText({ name: "N", description: "cont", type: "user" }))
        writeFileAt(join(dir, "notes-3.md"), topicText({ name: "N3", description: "cont", type: "user" }))
        writeFileAt(join(dir, "python-3.md"), topicText({ name: "P", description: "python 3 notes", type: "user" }))
        writeFileAt(join(dir, "MEMORY.md"), "- [G](good.md)\n- [Gone](gone.md)\n- [N](notes-2.md)\n- [N3](notes-3.md)\n- [P](python-3.md)\n")
        const results = yield* (yield* MemoryStore).lint(dir)
        const by = new Map(results.map((r) => [r.file, r.problems.map((p) => p.code)]))
        expect(by.get("good.md")).toEqual([])
        expect(by.get("notes-2.md")).toEqual(["continuation-name"])
        expect(by.get("python-3.md")).toEqual([])
        expect(by.get("MEMORY.md")).toEqual(["index-link-missing"])
      })
    )

    it.effect("a backfilled index passes its own lint, whatever the topic names and descriptions", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const names = ["my notes (old).md", "100%.md", "c#.md", "项目 😀.md", "sub/deep dir/x.md", `${"long".repeat(30)}.md`]
        names.forEach((name, i) =>
          writeFileAt(
            join(dir, name),
            topicText({ name: i === 0 ? "[Brackets] in * title" : "😀".repeat(100), description: `${"项e\u0301😀 ".repeat(60)}`, type: "user" })
          )
        )
        const store = yield* MemoryStore
        const index = yield* store.readIndex(dir)
        expect(index.backfilled).toBe(true)
        expect(index.lines).toBe(names.length)
        const results = yield* store.lint(dir)
        expect(results.find((r) => r.file === "MEMORY.md")?.problems).toEqual([])
      })
    )

    it.effect("lints only the named files, relative or absolute, and reports an unreadable one", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "a.md"), "no header\n")
        writeFileAt(join(dir, "b.md"), topicText({ name: "B", description: "b", type: "user" }))
        const results = yield* (yield* MemoryStore).lint(dir, ["a.md", join(dir, "b.md"), "missing.md"])
        expect(results.map((r) => [r.file, r.problems.map((p) => p.code)])).toEqual([
          ["a.md", ["frontmatter-missing"]],
          ["b.md", []],
          ["missing.md", ["file-unreadable"]]
        ])
      })
    )

    it.effect("lints in batches: each topic read once, each folder listed once", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeTopics(dir, 30)
        writeTopics(join(dir, "sub"), 10, { prefix: "inner" })
        writeFileAt(join(dir, "sub", "notes.md"), topicText({ name: "N", description: "n", type: "user" }))
        writeFileAt(join(dir, "sub", "notes-2.md"), topicText({ name: "N2", description: "n2", type: "user" }))
        const real = yield* Effect.provide(FileSystem, FileSystem.layer)
        const read: Array<string> = []
        const listed: Array<string> = []
        const results = yield* withStore(
          {
            readHeads: (paths, max) => {
              read.push(...paths)
              return real.readHeads(paths, max)
            },
            readDirectories: (paths) => {
              listed.push(...paths)
              return real.readDirectories(paths)
            }
          },
          (s) => s.lint(dir)
        )
        expect(results).toHaveLength(42)
        // The scan reads each header once, then lint reads each file once more (whole, up to its cap), and tries the
        // index once.
        const topicReads = read.filter((p) => p !== join(dir, "MEMORY.md"))
        expect(new Set(topicReads).size).toBe(42)
        expect(topicReads).toHaveLength(84)
        expect(read.filter((p) => p === join(dir, "MEMORY.md"))).toHaveLength(1)
        // The scan lists each folder once; lint lists the two folders once more.
        expect(listed.filter((p) => p === join(dir, "sub"))).toHaveLength(2)
        expect(listed).toHaveLength(4)
        expect(results.find((r) => r.file === "sub/notes-2.md")?.problems.map((p) => p.code)).toEqual(["continuation-name"])
      })
    )

    it.effect("a folder that cannot be listed still lints its files, only without the sibling check", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "sub", "notes.md"), topicText({ name: "N", description: "n", type: "user" }))
        writeFileAt(join(dir, "sub", "notes-2.md"), topicText({ name: "N2", description: "n2", type: "user" }))
        const real = yield* Effect.provide(FileSystem, FileSystem.layer)
        const sub = join(dir, "sub")
        const listed = yield* withStore({}, (s) => s.lint(dir, ["sub/notes-2.md"]))
        expect(listed[0]!.problems.map((p) => p.code)).toEqual(["continuation-name"])
        const unlisted = yield* withStore(
          {
            readDirectories: (paths) =>
              Effect.map(real.readDirectories(paths), (ls) =>
                ls.map((l, i) => (paths[i] === sub ? Either.left(new FsError({ op: "readdir", path: sub, reason: "Busy", detail: "EIO" })) : l))
              )
          },
          (s) => s.lint(dir, ["sub/notes-2.md"])
        )
        expect(unlisted).toEqual([{ file: "sub/notes-2.md", problems: [] }])
      })
    )

    it.effect("MEMORY.md named explicitly is checked against the real topics; without an index the full lint omits it", () =>
      Effect.gen(function* () {
        const dir = tempDir()
        writeFileAt(join(dir, "a.md"), topicText({ name: "A", description: "a", type: "user" }))
        const store = yield* MemoryStore
        expect((yield* store.lint(dir)).map((r) => r.file)).toEqual(["a.md"])
        expect(yield* store.lint(dir, ["MEMORY.md"])).toEqual([
          { file: "MEMORY.md", problems: [{ code: "file-unreadable", message: "MEMORY.md does not exist." }] }
        ])
        writeFileAt(join(dir, "MEMORY.md"), "- [A](a.md) - a\n- [Gone](gone.md) - gone\n")
        const explicit = yield* store.lint(dir, ["MEMORY.md"])
        expect(explicit[0]!.problems.map((p) => p.message)).toEqual(["MEMORY.md links to gone.md, which is not a readable topic file."])
      })
    )
  })
})

describe("FileSystem.readRegularFile", () => {
  it.live("refuses a FIFO at once with NotAFile", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      mkfifo(join(dir, "p"))
      const fs = yield* FileSystem
      const error = yield* Effect.flip(fs.readRegularFile(join(dir, "p")))
      expect(error.reason).toBe("NotAFile")
    }).pipe(Effect.provide(FileSystem.layer))
  )

  it.live("reads at most maxBytes and says when the file holds more", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileAt(join(dir, "f"), "0123456789")
      const fs = yield* FileSystem
      const head = yield* fs.readRegularFile(join(dir, "f"), 4)
      expect(Buffer.from(head.bytes).toString()).toBe("0123")
      expect(head.partial).toBe(true)
      const all = yield* fs.readRegularFile(join(dir, "f"))
      expect(all.partial).toBe(false)
      expect(all.info.kind).toBe("file")
    }).pipe(Effect.provide(FileSystem.layer))
  )
})
