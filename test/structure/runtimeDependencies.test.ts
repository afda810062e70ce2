/**
 * The bundles in dist/ carry every library they use except the ones that must be found at run time: Pi's packages
 * (the host's own copies, peer dependencies) and the sandbox runtime (it finds its own helper files beside itself).
 * So the production dependencies are exactly the packages the bundles still import: a user's install fetches
 * nothing the code never loads (and none of the native builds npm would ask to run), and misses nothing it does.
 */
import { readdirSync, readFileSync } from "node:fs"
import { isBuiltin } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const dist = join(repoRoot, "dist")
const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  readonly dependencies: Record<string, string>
  readonly peerDependencies: Record<string, string>
}

/** A package specifier: `name` or `@scope/name`, optionally followed by a path inside the package. */
const PACKAGE = /^((?:@[a-z0-9~][\w.~-]*\/)?[a-z0-9~][\w.~-]*)(?:\/.*)?$/

/** The packages one bundle imports, statically, dynamically or through `require`. */
const packagesOf = (text: string): Array<string> =>
  [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s*)["']([^"'\s]+)["']/gm)].flatMap((m) => {
    const spec = m[1]!
    const name = PACKAGE.exec(spec)?.[1]
    return name === undefined || spec.startsWith("node:") || isBuiltin(spec) ? [] : [name]
  })

it("the production dependencies are exactly the packages the built bundles import, beside Pi's own", () => {
  const files = readdirSync(dist).filter((f) => f.endsWith(".js") || f.endsWith(".cjs") || f.endsWith(".ts"))
  expect(files.length).toBeGreaterThan(2)
  const imported = new Set(files.flatMap((f) => packagesOf(readFileSync(join(dist, f), "utf8"))))
  const host = new Set(Object.keys(manifest.peerDependencies))
  expect([...imported].filter((name) => !host.has(name)).sort()).toEqual(Object.keys(manifest.dependencies).sort())
})
