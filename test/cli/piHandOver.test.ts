/**
 * The Pi a background worker uses: the one the run that started it ran in (handed over in the worker's environment),
 * before a Pi found by name or on PATH, so a Pi started from a folder not on PATH still runs the worker's jobs; and
 * the hand-over's variables read back as they were written.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { findPi, PI_PACKAGE } from "../../cli/piHost.ts"
import { workerEnv, workerHandOver } from "../../src/background/queueWorker.ts"
import { tempDir } from "../support/tmp.ts"

/** A Pi package folder of version `version`, its script in dist/cli.js, reached through a link in bin/ as npm makes. */
const fakePi = (version: string) => {
  const base = tempDir("pm-pi-handover-")
  const root = join(base, "lib", "node_modules", PI_PACKAGE)
  mkdirSync(join(root, "dist"), { recursive: true })
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: PI_PACKAGE, version, main: "dist/index.js" }))
  writeFileSync(join(root, "dist", "cli.js"), "")
  mkdirSync(join(base, "bin"))
  symlinkSync(join(root, "dist", "cli.js"), join(base, "bin", "pi"))
  return { root, script: join(base, "bin", "pi") }
}

describe("the Pi a worker uses", () => {
  it("is the one handed over by the run that started it, ahead of any other", () => {
    const pi = fakePi("9.9.9")
    const found = findPi({ PATH: "", ...workerEnv({ piScript: pi.script }) })
    expect(found).toMatchObject({ root: pi.root, version: "9.9.9", foundBy: "host", entry: join(pi.root, "dist", "index.js") })
  })

  it("falls back to the usual search when nothing or no Pi is handed over", () => {
    const onPath = fakePi("1.0.0")
    const PATH = join(onPath.script, "..")
    expect(findPi({ PATH })).toMatchObject({ root: onPath.root, foundBy: "path" })
    const notPi = join(tempDir("pm-pi-handover-"), "cli.js")
    writeFileSync(notPi, "")
    expect(findPi({ PATH, ...workerEnv({ piScript: notPi }) })).toMatchObject({ root: onPath.root, foundBy: "path" })
    expect(findPi({ PATH, ...workerEnv({ piScript: join(notPi, "missing") }) })).toMatchObject({ root: onPath.root, foundBy: "path" })
    // The handed-over Pi wins over the one on PATH.
    const handed = fakePi("2.0.0")
    expect(findPi({ PATH, ...workerEnv({ piScript: handed.script }) })).toMatchObject({ root: handed.root, foundBy: "host" })
  })

  it("reads back the script and the session folder as they were handed over", () => {
    const over = { piScript: "/opt/pi/cli.js", sessionFolder: { dir: "/home/u/.pi/agent/sessions/--p--", shared: false } }
    expect(workerHandOver(workerEnv(over))).toEqual(over)
    expect(workerHandOver(workerEnv({ sessionFolder: { dir: "/s", shared: true } }))).toEqual({ piScript: undefined, sessionFolder: { dir: "/s", shared: true } })
    expect(workerHandOver(workerEnv({ piScript: "", sessionFolder: { dir: "", shared: false } }))).toEqual({ piScript: undefined, sessionFolder: undefined })
    expect(workerEnv({})).toEqual({})
  })
})
