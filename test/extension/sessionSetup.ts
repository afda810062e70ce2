/**
 * MemorySession over a plain-array Host, real files and the fake provider (test/selector/faux.ts). Shared by the
 * unit tests of the session. Time is never waited on: a selector answer can be held on a gate the test opens, and
 * "the prefetch ended" is `MemorySession.prefetchesDone`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as pi from "@earendil-works/pi-coding-agent"
import { PiToolkit } from "../../layers/background/PiToolkit.ts"
import { extensionLayer } from "../../layers/app/ExtensionApp.ts"
import { Host, type HostShape } from "../../layers/session/Host.ts"
import { MemorySession } from "../../layers/session/MemorySession.ts"
import { makeFaux, toolReply, type Step } from "../selector/faux.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

export interface Sent {
  readonly customType: string
  readonly content: string
  readonly deliverAs: string
}

export interface SetupOptions {
  readonly trusted?: boolean
  readonly appendThrows?: boolean
  readonly idle?: boolean
  /** config.json written before the session starts. */
  readonly config?: Record<string, unknown>
}

export const setupSession = (options: SetupOptions = {}) => {
  const trust = { value: options.trusted ?? true }
  const idle = { value: options.idle ?? false }
  /** Set to make every host read of the cwd die (an internal error inside a handler). */
  const cwdBroken = { value: false }
  const agent = tempAgent()
  const repo = gitRepo()
  const sent: Array<Sent> = []
  const entries: Array<{ type: string; customType: string; data: unknown }> = []
  const notes: Array<string> = []
  if (options.config !== undefined) {
    mkdirSync(agent.storageRoot, { recursive: true })
    writeFileSync(join(agent.storageRoot, "config.json"), JSON.stringify(options.config))
  }
  const host: HostShape = {
    cwd: Effect.sync(() => {
      if (cwdBroken.value) throw new Error("host context is gone")
      return repo
    }),
    sessionId: Effect.succeed("session-1"),
    isTrusted: Effect.sync(() => trust.value),
    isIdle: Effect.sync(() => idle.value),
    branch: Effect.sync(() => entries),
    notify: (message) => Effect.sync(() => void notes.push(message)),
    appendEntry: (customType, data) =>
      Effect.sync(() => {
        if (options.appendThrows) throw new Error("stale extension context")
        entries.push({ type: "custom", customType, data })
      }),
    sendHidden: (customType, content, deliverAs) => Effect.sync(() => void sent.push({ customType, content, deliverAs }))
  }
  const faux = makeFaux()
  // The extension's own graph, with the host's two pieces replaced by the array Host and the fake provider.
  const layer = extensionLayer({ host: Layer.succeed(Host, host), models: faux.registry, toolkit: PiToolkit.layer(pi) }, { agentDir: agent.agentDir, home: agent.home })
  return { agent, repo, sent, entries, notes, faux, layer, trust, idle, cwdBroken, configPath: join(agent.storageRoot, "config.json") }
}

export type Session = ReturnType<typeof setupSession>

export const RELEASE_TOPIC = "---\nname: Release\ndescription: How we release\nmetadata:\n  type: project\n---\nTag and publish.\n"

/** Starts the session and writes one topic into its memory directory. */
export const withMemory = (_s: Session) =>
  Effect.gen(function* () {
    const session = yield* MemorySession
    yield* session.start
    const status = yield* session.status
    const dir = status.location!.memoryDir
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "release.md"), RELEASE_TOPIC)
    return { session, dir }
  })

/**
 * A selector answer held until the test opens the gate. `asked` resolves when the selector request arrives, so a
 * test knows the prefetch is in flight (and the request's 2 s wait, started before it, is already on the clock).
 */
export const heldAnswer = (names: ReadonlyArray<string>) => {
  let open!: () => void
  let markAsked!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const asked = new Promise<void>((resolve) => (markAsked = resolve))
  const step: Step = async () => {
    markAsked()
    await gate
    return toolReply(names)
  }
  return { step, open: Effect.sync(() => open()), asked: Effect.promise(() => asked) }
}
