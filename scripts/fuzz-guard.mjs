#!/usr/bin/env node
// The long differential run of the bash guard against bash itself (the suite runs a bounded slice of the same).
//
//   node scripts/fuzz-guard.mjs [--seed N] [--count N] [--executions N] [--seeds] [--out FILE]
//
// --seed        first PRNG seed (default: from the clock, printed); each block of 500 commands uses seed, seed+1, ...
// --count       commands to generate (default 5000; half from the grammar, half mutations of the corpora)
// --executions  stop after this many commands have run under bash
// --seeds       also classify every seed of test/fixtures/bash-bypass-seeds.jsonl, timing each (class 6 is cost)
// --out         append each mismatch as one JSON line to FILE
//
// Prints every mismatch (command, seed, what differed) and the figures: generated, allowed, executed, commands/s.
// Exit status 1 when any mismatch or allowed seed was found.
import { appendFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { loadSeeds, runCampaign, seedCommand } from "../test/bash/differential/campaign.ts"
import { Harness } from "../test/bash/differential/harness.ts"

const { values } = parseArgs({
  options: {
    seed: { type: "string" },
    count: { type: "string", default: "5000" },
    executions: { type: "string" },
    seeds: { type: "boolean", default: false },
    out: { type: "string" }
  }
})

const firstSeed = values.seed === undefined ? Date.now() % 1_000_000_007 : Number(values.seed)
const count = Number(values.count)
const maxExecutions = values.executions === undefined ? Infinity : Number(values.executions)
const BLOCK = 500

const h = await Harness.make()
console.log(`sandbox ${h.sandbox.root} isolation=${h.sandbox.isolation} real programs: ${h.sandbox.real.join(" ")}`)
let failed = 0
try {
  if (values.seeds) {
    for (const s of loadSeeds()) {
      const command = seedCommand(s)
      const t0 = performance.now()
      const v = h.classify(command)
      const ms = performance.now() - t0
      const shown = JSON.stringify(s.command).slice(0, 80) + (s.repeat ? ` + ${s.repeat.text} x ${s.repeat.times}` : "")
      if (v.verdict !== "rejected" && s.class !== 6) failed++
      console.log(`seed class ${s.class} ${v.verdict.padEnd(9)} ${ms.toFixed(1).padStart(8)} ms  ${shown}`)
    }
  }
  let generated = 0
  let allowed = 0
  let executed = 0
  let mismatches = 0
  const t0 = performance.now()
  for (let block = 0; generated < count && executed < maxExecutions; block++) {
    const seed = firstSeed + block
    const r = await runCampaign(h, {
      seed,
      count: Math.min(BLOCK, count - generated),
      maxExecutions: maxExecutions - executed,
      onMismatch: (m, index) => {
        console.log(`MISMATCH seed=${seed} index=${index} ${JSON.stringify(m.command)}\n    ${m.problems.join("\n    ")}`)
        if (values.out !== undefined) appendFileSync(values.out, JSON.stringify({ seed, index, command: m.command, problems: m.problems }) + "\n")
      }
    })
    generated += r.generated
    allowed += r.allowed
    executed += r.executed
    mismatches += r.mismatches.length
    const s = (performance.now() - t0) / 1000
    console.log(`seed ${seed}: generated ${generated}, allowed ${allowed}, executed ${executed}, mismatches ${mismatches}, ${(generated / s).toFixed(1)} generated/s, ${(executed / s).toFixed(1)} executed/s`)
  }
  failed += mismatches
} finally {
  await h.dispose()
}
process.exit(failed === 0 ? 0 : 1)
