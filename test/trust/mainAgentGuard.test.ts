/**
 * The credential guard on the main agent's `write` and `edit` into the memory directory, through MemorySession's
 * `toolCall` over a real memory directory: blocked with the kind and line (never the value), other files untouched.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { setupSession as setup, withMemory } from "../extension/sessionSetup.ts"
import { githubToken, privateKeyBlock } from "./fakeSecrets.ts"

describe("main agent writes into memory: the credential guard", () => {
  it.effect("a write whose content holds a token is blocked with the kind and line, never the value", () => {
    const s = setup()
    return Effect.gen(function* () {
      const { session, dir } = yield* withMemory(s)
      const token = githubToken()
      const verdict = yield* session.toolCall("write", { path: join(dir, "deploy.md"), content: `# Deploy\n\nuse ${token}\n` })
      expect(verdict?.block).toBe(true)
      expect(verdict?.reason).toContain("GitHub")
      expect(verdict?.reason).toContain("line 3")
      expect(verdict?.reason).toContain("deploy.md")
      expect(verdict?.reason).toContain("remove or redact")
      expect(verdict?.reason).not.toContain(token)
      // A clean write to memory, and a token written outside memory (not memory's business), pass.
      expect(yield* session.toolCall("write", { path: join(dir, "deploy.md"), content: "# Deploy\n\nrun make release\n" })).toBeUndefined()
      expect(yield* session.toolCall("write", { path: join(s.repo, ".env.local"), content: `GH=${token}\n` })).toBeUndefined()
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("an edit is judged on the file it leaves: a key assembled from the file and the new text is blocked", () => {
    const s = setup()
    return Effect.gen(function* () {
      const { session, dir } = yield* withMemory(s)
      const block = privateKeyBlock()
      const [header, ...rest] = block.split("\n")
      const path = join(dir, "keys.md")
      // The file holds key material with a harmless first line; the edit supplies only the header line.
      const before = `# Keys\n\nPLACEHOLDER\n${rest.join("\n")}\n`
      writeFileSync(path, before)
      const verdict = yield* session.toolCall("edit", { path, edits: [{ oldText: "PLACEHOLDER", newText: header }] })
      expect(verdict?.block).toBe(true)
      expect(verdict?.reason).toMatch(/private key at line 3/i)
      expect(readFileSync(path, "utf8")).toBe(before)
      // The same header into a file without key material leaves no key: allowed.
      writeFileSync(path, "# Keys\n\nPLACEHOLDER\n")
      expect(yield* session.toolCall("edit", { path, edits: [{ oldText: "PLACEHOLDER", newText: header }] })).toBeUndefined()
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("an edit elsewhere in a file that already held a secret is allowed; one adding a second is blocked", () => {
    const s = setup()
    return Effect.gen(function* () {
      const { session, dir } = yield* withMemory(s)
      const path = join(dir, "old.md")
      writeFileSync(path, `# Old\n\nkept by hand: ${githubToken()}\n\nstatus: draft\n`)
      expect(yield* session.toolCall("edit", { path, edits: [{ oldText: "status: draft", newText: "status: done" }] })).toBeUndefined()
      const verdict = yield* session.toolCall("edit", { path, edits: [{ oldText: "status: draft", newText: `also ${githubToken()}` }] })
      expect(verdict?.block).toBe(true)
      expect(verdict?.reason).toContain("line 5")
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("an edit that does not apply exactly is judged on its new text", () => {
    const s = setup()
    return Effect.gen(function* () {
      const { session, dir } = yield* withMemory(s)
      const verdict = yield* session.toolCall("edit", {
        path: join(dir, "release.md"),
        edits: [{ oldText: "no such text", newText: `token ${githubToken()}` }]
      })
      expect(verdict?.block).toBe(true)
      expect(verdict?.reason).toContain("GitHub")
    }).pipe(Effect.provide(s.layer))
  })
})
