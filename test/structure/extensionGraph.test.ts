/**
 * The extension's graph as Pi builds it (layers/app/ExtensionApp.ts, the host's pieces faked): every service of its
 * type is present and is the one the graph made, and the list the graph declares is the whole of its type.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { EXTENSION_SERVICES, type ExtensionServices } from "../../layers/app/ExtensionApp.ts"
import { extensionGraph, hostLayer } from "../support/extensionGraph.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

// The declared list covers the graph's whole type (a service added to the graph but not to the list fails here).
type Listed = Context.Tag.Identifier<(typeof EXTENSION_SERVICES)[number]>
const covers: [Exclude<ExtensionServices, Listed>] extends [never] ? true : false = true

describe("the extension's graph", () => {
  it("holds every service of its type, each made once", async () => {
    expect(covers).toBe(true)
    const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-graph-")))
    dirs.push(base)
    const cwd = join(base, "project")
    mkdirSync(cwd)
    execFileSync("git", ["init", "-q"], { cwd })
    const context = await Effect.runPromise(
      Effect.scoped(Layer.build(extensionGraph({ host: hostLayer(cwd), env: { agentDir: join(base, "agent"), home: base } })))
    )
    const missing = EXTENSION_SERVICES.filter((tag) => Context.getOption(context, tag as Context.Tag<any, any>)._tag === "None").map((t) => t.key)
    expect(missing).toEqual([])
    expect(new Set(EXTENSION_SERVICES.map((t) => t.key)).size).toBe(EXTENSION_SERVICES.length)
    expect(context.unsafeMap.size).toBe(EXTENSION_SERVICES.length)
  })
})
