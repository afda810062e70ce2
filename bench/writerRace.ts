/**
 * The writer against a process that flips a parent directory and a symlink to an outside folder, for each
 * anchoring scheme: how many creates, replaces and deletes were done, refused at the check, refused because the
 * pinned directory moved (`path-changed`), and how many landed outside memory (must be 0 for descriptor anchoring;
 * the path scheme's residual window shows up here if it is hit).
 *   node bench/writerRace.ts [rounds=400]
 */
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../layers/writes/MemoryWriter.ts"

const rounds = Number(process.argv[2] ?? 400)
const TOPIC = (i: number) => `---\nname: f${i}\ndescription: d\nmetadata:\n  type: project\n---\nbody ${i}\n`

const FLIPPER = `
const fs = require("node:fs")
const [sub, stash, outside, stop] = JSON.parse(process.argv[1])
const pause = new Int32Array(new SharedArrayBuffer(4))
let flips = 0, aside = 0
const restore = () => {
  while (true) {
    try {
      if (fs.lstatSync(sub, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(sub)
      fs.renameSync(stash, sub)
      return
    } catch { try { fs.renameSync(sub, sub + "-aside-" + aside++) } catch {} }
  }
}
console.log("ready")
while (!fs.existsSync(stop)) {
  fs.renameSync(sub, stash)
  try { fs.symlinkSync(outside, sub) } catch {}
  restore()
  flips++
  Atomics.wait(pause, 0, 0, Math.floor(Math.random() * 3))
}
console.log(flips)
`

const runOne = async (anchoring: "descriptor" | "path") => {
  const root = mkdtempSync(join(tmpdir(), "pm-writer-race-"))
  try {
    const memory = join(root, "memory")
    const outside = join(root, "outside")
    const sub = join(memory, "sub")
    for (const d of [memory, outside, sub, join(root, "attic")]) mkdirSync(d)
    for (let i = 0; i < rounds; i++) {
      writeFileSync(join(sub, `d-${i}.md`), TOPIC(i))
      writeFileSync(join(outside, `d-${i}.md`), "victim")
    }
    writeFileSync(join(sub, "r.md"), TOPIC(0))
    writeFileSync(join(outside, "r.md"), "victim")
    const stop = join(root, "stop")
    const child = spawn(process.execPath, ["-e", FLIPPER, JSON.stringify([sub, join(root, "attic", "sub"), outside, stop])])
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c))
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
    const counts: Record<string, number> = {}
    const count = (tag: string) => (counts[tag] = (counts[tag] ?? 0) + 1)
    const tagOf = (e: { _tag: string; rule?: string }) => (e.rule === "path-changed" ? "path-changed" : e._tag === "WriteRejected" ? "refused at check" : "other failure")
    const start = performance.now()
    await Effect.runPromise(Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const task = yield* writer.openTask({ memoryDir: memory, cwd: memory })
      for (let i = 0; i < rounds; i++) {
        const done = { onFailure: (e: { _tag: string; rule?: string }) => count(tagOf(e)), onSuccess: () => count("done") }
        yield* task.write(join(sub, `f-${i}.md`), TOPIC(i)).pipe(Effect.match(done))
        yield* task.recordRead(join(sub, "r.md"), { kind: "text", truncated: false })
        yield* task.write(join(sub, "r.md"), TOPIC(i)).pipe(Effect.match(done))
        yield* writer.remove(join(sub, `d-${i}.md`), { memoryDir: memory }).pipe(Effect.match(done))
      }
    }).pipe(Effect.provide(MemoryWriter.layerWith({ anchoring }).pipe(Layer.provide(FileSystem.layer)))))
    const ms = performance.now() - start
    writeFileSync(stop, "")
    await exited
    const names = readdirSync(outside)
    const landed = names.filter((n) => n.startsWith("f-")).length +
      names.filter((n) => n.startsWith("d-") || n === "r.md").filter((n) => readFileSync(join(outside, n), "utf8") !== "victim").length +
      (rounds - names.filter((n) => n.startsWith("d-")).length)
    const flips = out.trim().split("\n").at(-1)
    console.log(
      `${anchoring.padEnd(10)} ${3 * rounds} changes in ${(ms / 1000).toFixed(1)} s, ${flips} flips: ` +
        `${JSON.stringify(counts)}; outside memory: ${landed}`
    )
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

console.log(`node ${process.version}, ${process.platform}`)
await runOne("descriptor")
await runOne("path")
