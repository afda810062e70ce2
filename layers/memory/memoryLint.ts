/**
 * Lint over one memory directory: the topic files asked for (or every scanned topic and MEMORY.md), each read once
 * and checked by the rules of src/memory/lint.ts, with the index's links checked against the readable topics. What
 * cannot be read is a problem of its file, never a failure of the lint. It reads and reports; it changes nothing.
 */
import * as Effect from "effect/Effect"
import { dirname, join, relative, sep } from "node:path"
import { indexLinkTargets, lintIndex, lintTopic, type LintProblem, unindexedTopics } from "../../src/memory/lint.ts"
import { INDEX_FILE } from "../../src/storage/layout.ts"
import type { FileSystemShape } from "../storage/fileSystemShape.ts"
import type { IndexReadError } from "./indexFile.ts"
import { decode, describeReason } from "./readText.ts"
import type { ScanResult } from "./topicScan.ts"

export interface FileLint {
  readonly file: string
  readonly problems: ReadonlyArray<LintProblem>
}

const LINT_READ_CAP = 1 << 20

const toPosix = (p: string): string => (sep === "/" ? p : p.split(sep).join("/"))

const safeDecodeURI = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export const makeMemoryLint = (
  fs: FileSystemShape,
  readIndexFile: (memoryDir: string) => Effect.Effect<string, IndexReadError>,
  scanTopics: (memoryDir: string, options?: { readonly thorough?: boolean }) => Effect.Effect<ScanResult>
) => {
  /** Lints topic files in one batch: one read each, and one listing per folder for the sibling names. */
  const lintTopics = (memoryDir: string, files: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const paths = files.map((file) => (file.startsWith("/") ? file : join(memoryDir, file)))
      const folders = [...new Set(paths.map((path) => dirname(path)))]
      const reads = yield* fs.readHeads(paths, LINT_READ_CAP)
      const listings = yield* fs.readDirectories(folders)
      const siblingsOf = new Map<string, ReadonlyArray<string>>()
      folders.forEach((folder, i) => {
        const listing = listings[i]!
        if (listing._tag === "Right") siblingsOf.set(folder, listing.right.map((e) => e.name))
      })
      return paths.map((path, i): FileLint => {
        const filename = toPosix(relative(memoryDir, path))
        const read = reads[i]!
        if (read._tag === "Left") {
          return { file: filename, problems: [{ code: "file-unreadable", message: `${filename} cannot be read: ${describeReason(read.left.reason)}.` }] }
        }
        const names = siblingsOf.get(dirname(path))
        return {
          file: filename,
          problems: lintTopic({
            filename,
            content: decode(read.right.bytes),
            bytes: read.right.bytes,
            sizeBytes: read.right.info.size,
            ...(names !== undefined ? { siblings: names } : {})
          })
        }
      })
    })

  /** The index's problems, with its links checked against the topics; undefined when there is no index at all. */
  const lintIndexFile = (memoryDir: string, known: ReadonlySet<string>) =>
    readIndexFile(memoryDir).pipe(
      Effect.map((content): FileLint | undefined => {
        const missing = indexLinkTargets(content)
          .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"))
          .map((t) => safeDecodeURI(t).replace(/^\.\//, ""))
          .filter((t) => !known.has(t))
          .map((t) => ({ code: "index-link-missing" as const, message: `MEMORY.md links to ${t}, which is not a readable topic file.` }))
        return { file: INDEX_FILE, problems: [...lintIndex(content), ...missing, ...unindexedTopics(content, [...known])] }
      }),
      Effect.catchAll((e) =>
        Effect.succeed<FileLint | undefined>(
          e.reason === describeReason("NotFound")
            ? undefined
            : { file: INDEX_FILE, problems: [{ code: "file-unreadable", message: `MEMORY.md cannot be read: ${e.reason}.` }] }
        )
      )
    )

  const knownTopics = (memoryDir: string) =>
    scanTopics(memoryDir).pipe(Effect.map(({ topics }) => new Set(topics.map((t) => t.filename))))

  const lint = Effect.fn("MemoryStore.lint")(function* (memoryDir: string, files?: ReadonlyArray<string>) {
    if (files !== undefined && files.length > 0) {
      const isIndex = (f: string) => f === INDEX_FILE || f === join(memoryDir, INDEX_FILE)
      const topicLints = yield* lintTopics(memoryDir, files.filter((f) => !isIndex(f)))
      const indexLint = files.some(isIndex)
        ? yield* Effect.flatMap(knownTopics(memoryDir), (known) => lintIndexFile(memoryDir, known)).pipe(
          Effect.map((r): FileLint => r ?? { file: INDEX_FILE, problems: [{ code: "file-unreadable", message: "MEMORY.md does not exist." }] })
        )
        : undefined
      let next = 0
      return files.map((f) => (isIndex(f) ? indexLint! : topicLints[next++]!))
    }
    const { topics, skipped } = yield* scanTopics(memoryDir, { thorough: true })
    const topicLints = yield* lintTopics(memoryDir, topics.map((t) => t.path))
    // What the scan could not read is a problem here too (`pm scan` lists the same files as skipped).
    const unreadable = skipped
      .map((sk): FileLint => ({ file: sk.filename, problems: [{ code: "file-unreadable", message: `${sk.filename} cannot be read: ${sk.reason}.` }] }))
    const indexLint = yield* lintIndexFile(memoryDir, new Set(topics.map((t) => t.filename)))
    return indexLint === undefined ? [...topicLints, ...unreadable] : [indexLint, ...topicLints, ...unreadable]
  })

  return lint
}
