// Prints what test/support/loopWatch.ts recorded in FOLDER: each test file's wall time and longest event-loop block,
// longest block first (the first rows are the files that risk vitest's 60 s RPC timeout on a loaded machine).
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

const folder = process.argv[2]
if (folder === undefined) {
  console.error("usage: node scripts/loopReport.mjs FOLDER")
  process.exit(2)
}
const rows = readdirSync(folder)
  .filter((name) => name.endsWith(".jsonl"))
  .flatMap((name) => readFileSync(join(folder, name), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)))
const by = process.argv[3] === "--wall" ? "wallMs" : "worstBlockMs"
rows.sort((a, b) => b[by] - a[by])
for (const row of rows.slice(0, Number(process.argv[4] ?? 40)))
  console.log(`${String(row.worstBlockMs).padStart(7)} ms block  ${String((row.wallMs / 1000).toFixed(1)).padStart(6)} s  ${relative(process.cwd(), row.file)}  [${row.worstTest}]`)
