/**
 * One Pi in the process: the built files import Pi's packages by name only from Pi's entry, `dist/extension.ts`, the
 * TypeScript file that Pi's loader always compiles and in which it maps the names to the host's own modules. A
 * JavaScript file that imported them would, from an install from the registry, find no such package, and from a
 * checkout load the dev dependencies' second Pi. `pm` finds Pi by path (cli/piHost.ts), never by a bare import in
 * its bundle. The behaviour itself is proven in packagedInstall.test.ts; this is the quick check that names the file
 * at fault.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot } from "../support/pm.ts"

const HOST_PACKAGES = /(?:from\s*|import\s*\(\s*)["'](@earendil-works\/[^"']+|typebox[^"']*)["']/g

const importsIn = (file: string): Array<string> =>
  [...readFileSync(join(repoRoot, "dist", file), "utf8").matchAll(HOST_PACKAGES)].map((m) => m[1]!)

beforeAll(() => ensureBuilt())

describe("the built files import Pi by name only from Pi's entry", () => {
  it("the manifest names index.ts, which hands on dist/extension.ts, which imports the host and hands it to the bundle", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { pi: { extensions: Array<string> } }
    // At the package's root, named index.ts: Pi's list of extensions then shows the package's name, not a file's.
    expect(manifest.pi.extensions).toEqual(["./index.ts"])
    expect(readFileSync(join(repoRoot, "index.ts"), "utf8")).toContain('export { default } from "./dist/extension.ts"')
    expect([...readFileSync(join(repoRoot, "index.ts"), "utf8").matchAll(HOST_PACKAGES)]).toEqual([])
    expect(importsIn("extension.ts")).toEqual(["@earendil-works/pi-coding-agent"])
    expect(readFileSync(join(repoRoot, "dist", "extension.ts"), "utf8")).toContain("export default projectMemory(host)")
  })

  it("no JavaScript file of the extension and none of pm imports a Pi package by name", () => {
    const offenders = readdirSync(join(repoRoot, "dist"))
      .filter((f) => f.endsWith(".js"))
      .flatMap((f) => importsIn(f).map((name) => `${f}: ${name}`))
    expect(offenders).toEqual([])
  })
})
