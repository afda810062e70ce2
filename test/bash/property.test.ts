/**
 * Property: commands assembled from allowed pieces are read-only, and the same commands with one forbidden construct
 * spliced in anywhere are always rejected. Seeded, so a failure names a reproducible case.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { generate, prng } from "./generator.ts"

const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: "/home/u/app" }
const RUNS = Number(process.env.BASH_PROPERTY_RUNS ?? 3000)

layer(BashGuard.layer)("property: one forbidden construct rejects the whole command", (it) => {
  it.effect(`${RUNS} seeded commands`, () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const r = prng(Number(process.env.BASH_PROPERTY_SEED ?? 0x5eed))
      const cleanSeen = new Set<string>()
      for (let i = 0; i < RUNS; i++) {
        const g = generate(r)
        if (!cleanSeen.has(g.clean)) {
          cleanSeen.add(g.clean)
          const clean = guard.classifySync(g.clean, CTX)
          expect(clean, `run ${i}, allowed pieces: ${JSON.stringify(g.clean)}`).toEqual({ verdict: "read-only" })
        }
        const v = guard.classifySync(g.command, CTX)
        expect(v.verdict, `run ${i}, construct ${JSON.stringify(g.construct)} in ${JSON.stringify(g.command)}`).toBe("rejected")
      }
    })
  )

  it.effect("deep lists of allowed pieces stay read-only; one forbidden leaf deep inside is found", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const r = prng(42)
      for (let i = 0; i < 20; i++) {
        const g = generate(r, 60)
        expect(guard.classifySync(g.clean, CTX).verdict).toBe("read-only")
        expect(guard.classifySync(g.command, CTX).verdict).toBe("rejected")
      }
    })
  )
})
