/**
 * dist/ is committed (a git install runs no build), so the last commit's dist/ must be exactly what the build makes
 * of that commit's sources: the commit's tree is extracted into a temporary folder (with a hard-linked copy of this
 * checkout's node_modules: through a symbolic link the bundler would see other paths, and name its chunks otherwise),
 * built there, and the built files compared with the committed ones, name for name and byte for byte (the source
 * maps, not committed, aside). Uncommitted changes in this checkout play no part.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { run } from "../support/install.ts"
import { repoRoot } from "../support/pm.ts"
import { tempDir } from "../support/tmp.ts"

const HOW = "dist/ in the last commit is not the build of its sources: run `npm run build` and commit dist/"

/** The commit's tree, extracted into `dir`. */
const extractHead = (dir: string): void => {
  mkdirSync(dir, { recursive: true })
  execFileSync("sh", ["-c", 'git -C "$1" archive --format=tar HEAD | tar -x -C "$2"', "sh", repoRoot, dir])
}

const builtFiles = (dist: string): Array<string> => readdirSync(dist).filter((f) => !f.endsWith(".map") && !f.startsWith(".")).sort()

describe("the committed build", () => {
  it("is, file for file, what the build makes of the committed sources", async () => {
    const committed = join(tempDir("pm-committed-"), "tree")
    const rebuilt = join(tempDir("pm-rebuilt-"), "tree")
    extractHead(committed)
    extractHead(rebuilt)
    rmSync(join(rebuilt, "dist"), { recursive: true, force: true })
    const linked = await run("cp", ["-al", join(repoRoot, "node_modules"), join(rebuilt, "node_modules")])
    expect(linked.code, linked.stderr).toBe(0)
    const built = await run(process.execPath, [join(rebuilt, "scripts", "build.mjs")], { cwd: rebuilt })
    expect(built.code, built.stderr).toBe(0)

    const names = builtFiles(join(rebuilt, "dist"))
    expect(names.length).toBeGreaterThan(10)
    expect(builtFiles(join(committed, "dist")), HOW).toEqual(names)
    const differing = names.filter((f) => !readFileSync(join(committed, "dist", f)).equals(readFileSync(join(rebuilt, "dist", f))))
    expect(differing, HOW).toEqual([])
    // pm's executable keeps its mode through git (a global install links it as the `pm` command).
    expect(statSync(join(committed, "dist", "pm.js")).mode & 0o111).not.toBe(0)
  })
})
