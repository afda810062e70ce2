/**
 * What the built extension loads, and when: Pi imports the entry and calls its factory at start-up, so they must not
 * load the session side; session start loads the session side but not the background tasks' code (the first task
 * imports it) nor the bash parser (the first background command does), nor the credential detector (the first text it
 * checks, a write's, does), nor the `/memory` command's code (its first use does). Observed through Node's module-load hook (which files were loaded), not
 * by timing; the figures are in bench/extension.ts. Needs the build (npm run build), like every host test.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { registerHooks } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { githubToken } from "../trust/fakeSecrets.ts"
import { EXTENSION_BUNDLE, selectAnswer, startHarness, topic, type Harness } from "./harness.ts"

const loaded: Array<string> = []
const hooks = registerHooks({
  load: (url, context, nextLoad) => {
    loaded.push(url)
    return nextLoad(url, context)
  }
})
afterAll(() => hooks.deregister())

/** The files of the built extension loaded so far, by name (chunk hashes dropped). */
const ours = (): Array<string> =>
  loaded.filter((u) => u.includes("/dist/extension")).map((u) => u.replace(/.*\/dist\//, "").replace(/-[A-Z0-9]{8}\.js$/, ".js"))
/** The built file holding the `/memory` command's code: the one with its usage line for `remember`. */
const commandFile = (): string => {
  const dist = dirname(EXTENSION_BUNDLE)
  const files = readdirSync(dist).filter((f) => f.startsWith("extension") && f.endsWith(".js"))
  const holding = files.filter((f) => readFileSync(join(dist, f), "utf8").includes("Usage: /memory remember"))
  expect(holding).toHaveLength(1)
  return holding[0]!
}
const commandLoaded = (): boolean => loaded.some((u) => u.endsWith(`/dist/${commandFile()}`))
/** Whether the credential detector's file (dist/secrets-detector.cjs) has been loaded. */
const detectorLoaded = (): boolean => loaded.some((u) => u.endsWith("/dist/secrets-detector.cjs"))

describe("the built extension loads on use", () => {
  it("import and factory load the entry alone: no session side, no Effect runtime", async () => {
    // A fresh process, as Pi's start-up is: it records every module it loads, imports the entry and calls the factory.
    const script = [
      `import { registerHooks } from "node:module"`,
      `const loaded = []`,
      `registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) })`,
      `const registered = []`,
      `const entry = await import(${JSON.stringify(pathToFileURL(EXTENSION_BUNDLE).href)})`,
      // The host's module is not touched before a session starts: an empty one stands in for it.
      `entry.projectMemory({})({ on: (name) => registered.push(name), registerCommand: (name) => registered.push("/" + name) })`,
      `process.stdout.write(JSON.stringify({ loaded, registered }))`
    ].join("\n")
    const out = JSON.parse((await run(process.execPath, ["--input-type=module", "-e", script])).stdout)
    const files = (out.loaded as Array<string>).filter((u) => u.includes("/dist/")).map((u) => u.replace(/.*\/dist\//, ""))
    expect(files).toContain("extension.js")
    expect(files.filter((f) => f.startsWith("extension-session") || f.startsWith("extension-BashParser"))).toEqual([])
    // Nothing else: the entry's own imports are small shared chunks, not the Effect runtime (hundreds of KB).
    expect(files.every((f) => f === "extension.js" || f.startsWith("extension-chunk-"))).toBe(true)
    const bytes = files.reduce((n, f) => n + statSync(join(dirname(EXTENSION_BUNDLE), f)).size, 0)
    expect(bytes).toBeLessThan(32 * 1024)
    expect(out.registered).toContain("session_start")
    expect(out.registered).toContain("before_agent_start")
    expect(out.registered).toContain("/memory")
  })

  it("session start loads the session side but no task code; after a first request the bash parser still waits", async () => {
    let h: Harness | undefined
    try {
      h = await startHarness({
        memory: { "MEMORY.md": "- [Release](release.md) - how releases go\n", "release.md": topic("Release", "How releases go") },
        selector: () => selectAnswer(["release.md"])
      })
      expect(ours().some((f) => f.startsWith("extension-session"))).toBe(true)
      // The background tasks' code waits for the first task, the bash parser for the first command.
      expect(ours().filter((f) => /^extension-(ExtractorTask|DreamTask|BashParser)/.test(f))).toEqual([])
      await h.prompt("how do we cut a release")
      expect(h.mainRequests()).toHaveLength(1)
      // The request was served from memory: the recall reached the main model.
      expect(JSON.stringify(h.mainRequests()[0]!.messages)).toContain("How releases go")
      expect(ours().filter((f) => f.startsWith("extension-BashParser"))).toEqual([])
      // Nothing was written yet, so no text was checked for credentials: the detector is not loaded; and no /memory
      // command has run, so its code is not loaded either.
      expect(detectorLoaded()).toBe(false)
      expect(commandLoaded()).toBe(false)
      // The first write checks its text: the detector loads then, and refuses a credential as it always did.
      const before = h.notifications.length
      await h.prompt(`/memory remember the CI token is ${githubToken()}`)
      expect(detectorLoaded()).toBe(true)
      expect(commandLoaded()).toBe(true)
      const refusals = h.notifications.slice(before).filter((n) => n.message.includes("Refused"))
      expect(refusals.map((n) => [n.level, n.message.includes("GitHub token")])).toEqual([["warning", true]])
    } finally {
      await h?.dispose()
    }
  })
})
