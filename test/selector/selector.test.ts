/** The Selector against pi-ai's fake provider: every reply shape, the failure boundary, and the exact request sent. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ModelRegistry } from "../../layers/model/ModelRegistry.ts"
import { SelectionFailed, Selector, type SelectorTopic, type SelectRequest } from "../../layers/recall/Selector.ts"
import { emptyRecallState, withRead, withRecall } from "../../src/recall/recallState.ts"
import { repoRoot } from "../support/pm.ts"
import { conversationOf, errorReply, makeFaux, systemPromptOf, textReply, toolReply, toolsOf, type Step } from "./faux.ts"

const T0 = Date.parse("2025-01-01T00:00:00.000Z")
const topics: ReadonlyArray<SelectorTopic> = ["a", "b", "c", "d", "e", "f", "g"].map((n, i) => ({
  filename: `${n}.md`,
  type: i % 2 === 0 ? "project" : undefined,
  description: `About ${n}`,
  mtimeMs: T0 + i * 1000,
  fileMtimeMs: T0 + i * 2000
}))

const request = (overrides: Partial<SelectRequest> = {}): SelectRequest => ({
  query: "how do we release",
  topics,
  state: emptyRecallState,
  modelRef: "faux/faux-1",
  sessionId: "session-1",
  ...overrides
})

const select = (r: SelectRequest = request()) => Effect.flatMap(Selector, (s) => s.select(r))

const fixture = readFileSync(join(repoRoot, "test", "fixtures", "prompts", "selector.txt"), "utf8").replace(/\n$/, "")

describe("Selector: replies", () => {
  it.effect("a valid selection is returned in order", () => {
    const faux = makeFaux()
    faux.script(toolReply(["c.md", "a.md"]))
    return select().pipe(
      Effect.tap((out) => expect(out).toStrictEqual({ selected: ["c.md", "a.md"], warning: undefined, requests: 1 })),
      Effect.provide(faux.selector)
    )
  })

  it.effect("an empty selection is a success without a warning", () => {
    const faux = makeFaux()
    faux.script(toolReply([]))
    return select().pipe(
      Effect.tap((out) => expect(out).toStrictEqual({ selected: [], warning: undefined, requests: 1 })),
      Effect.provide(faux.selector)
    )
  })

  it.effect("[type]-prefixed names are stripped, unknown names dropped, duplicates removed", () => {
    const faux = makeFaux()
    faux.script(toolReply(["[project] a.md", "nope.md", "a.md", "[user] b.md", "b.md", "../etc/passwd"]))
    return select().pipe(
      Effect.tap((out) => expect(out.selected).toStrictEqual(["a.md", "b.md"])),
      Effect.tap((out) => expect(out.warning).toBeUndefined()),
      Effect.provide(faux.selector)
    )
  })

  it.effect("six names give the first five", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md", "b.md", "c.md", "d.md", "e.md", "f.md"]))
    return select().pipe(
      Effect.tap((out) => expect(out.selected).toStrictEqual(["a.md", "b.md", "c.md", "d.md", "e.md"])),
      Effect.provide(faux.selector)
    )
  })

  it.effect("no topics: no request at all", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md"]))
    return select(request({ topics: [] })).pipe(
      Effect.tap((out) => expect(out).toStrictEqual({ selected: [], warning: undefined, requests: 0 })),
      Effect.tap(() => expect(faux.callCount()).toBe(0)),
      Effect.provide(faux.selector)
    )
  })

  it.effect("a JSON text reply instead of a tool call is accepted", () => {
    const faux = makeFaux()
    faux.script(textReply('{"selected_memories": ["[project] e.md"]}'))
    return select().pipe(
      Effect.tap((out) => expect(out).toStrictEqual({ selected: ["e.md"], warning: undefined, requests: 1 })),
      Effect.provide(faux.selector)
    )
  })
})

describe("Selector: failure boundary ([] plus one warning; abort silent; never an exception)", () => {
  const failsWith = (reply: Step, warning: RegExp, reason: SelectionFailed["reason"]) => {
    const faux = makeFaux()
    faux.script(reply)
    return select().pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual([])
        expect(out.failure).toBeInstanceOf(SelectionFailed)
        expect(out.failure).toMatchObject({ _tag: "SelectionFailed", reason })
        expect(out.warning).toMatch(warning)
        expect(out.warning?.split("\n")).toHaveLength(1)
        expect(out.requests).toBe(1)
        expect(faux.callCount()).toBe(1)
      }),
      Effect.provide(faux.selector)
    )
  }

  it.effect("prose instead of a tool call", () => failsWith(textReply("The release memory looks relevant."), /^Memory recall skipped: the answer is not valid JSON/, "BadJson"))

  it.effect("malformed JSON in the tool arguments", () => {
    // The faux provider streams arguments as JSON; a string argument is what a provider hands over when its own
    // parser gave up on a broken object.
    const reply = toolReply([])
    ;(reply.content[0] as { arguments: unknown }).arguments = '{"selected_memories": ["a.md",'
    return failsWith(reply, /not valid JSON/, "BadJson")
  })

  it.effect("arguments that do not match the schema", () => {
    const reply = toolReply([])
    ;(reply.content[0] as { arguments: unknown }).arguments = { selected_memories: ["a.md"], reason: "x" }
    return failsWith(reply, /does not match the schema \(unexpected properties: reason\)/, "SchemaMismatch")
  })

  it.effect("a `length` stop, even with a complete tool call in it", () => {
    const reply = toolReply(["a.md"])
    return failsWith({ ...reply, stopReason: "length" }, /cut off at the token limit/, "Truncated")
  })

  it.effect("an empty reply", () => failsWith(textReply(""), /neither a tool call nor text/, "NoAnswer"))

  it.effect("a provider error reply", () => failsWith(errorReply("503 overloaded"), /the request failed: 503 overloaded/, "RequestFailed"))

  it.effect("a step that throws (the provider reports it as an error reply)", () =>
    failsWith(() => {
      throw new Error("socket hang up")
    }, /the request failed: socket hang up/, "RequestFailed")
  )

  it.effect("a backend whose complete rejects: [] plus a warning, no exception", () => {
    const faux = makeFaux()
    const registry = ModelRegistry.layerWith({ ...faux.backend, complete: () => Promise.reject(new Error("ECONNRESET")) })
    return select().pipe(
      Effect.tap((out) =>
        expect(out).toStrictEqual({
          selected: [],
          warning: "Memory recall skipped: the request failed: ECONNRESET.",
          requests: 1,
          failure: new SelectionFailed({ reason: "RequestFailed", detail: "ECONNRESET" })
        })
      ),
      Effect.provide(Selector.layer.pipe(Layer.provide(registry)))
    )
  })

  it.effect("a backend that throws synchronously (a defect) is caught too", () => {
    const faux = makeFaux()
    const registry = ModelRegistry.layerWith({
      ...faux.backend,
      find: () => {
        throw new Error("registry exploded")
      }
    })
    return select().pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual([])
        expect(out.warning).toMatch(/^Memory recall skipped: unexpected error \(.*registry exploded\)\.$/)
        expect(out.failure).toMatchObject({ _tag: "SelectionFailed", reason: "Unexpected" })
      }),
      Effect.provide(Selector.layer.pipe(Layer.provide(registry)))
    )
  })

  it.effect("an unknown model: [] plus a warning naming it, no request", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md"]))
    return select(request({ modelRef: "faux/nope" })).pipe(
      Effect.tap((out) => {
        expect(out).toStrictEqual({
          selected: [],
          warning: expect.stringMatching(/faux\/nope is not known/),
          requests: 0,
          failure: expect.objectContaining({ _tag: "ModelUnavailable", ref: "faux/nope" })
        })
        expect(faux.callCount()).toBe(0)
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("no model at all (no ref, no fallback): [] plus a warning", () => {
    const faux = makeFaux({ fallback: undefined })
    return select(request({ modelRef: undefined })).pipe(
      Effect.tap((out) => expect(out.warning).toMatch(/no model is configured/)),
      Effect.provide(faux.selector)
    )
  })

  it.effect("a reply with stopReason aborted: [] and no warning", () => {
    const faux = makeFaux()
    faux.script({ ...toolReply(["a.md"]), stopReason: "aborted" })
    return select().pipe(
      Effect.tap((out) =>
        expect(out).toStrictEqual({ selected: [], warning: undefined, requests: 1, failure: new SelectionFailed({ reason: "Aborted", detail: "" }) })
      ),
      Effect.provide(faux.selector)
    )
  })

  it.effect("interrupting the selector while the provider is answering aborts the request and ends quietly", () =>
    Effect.gen(function* () {
      const faux = makeFaux()
      const started = yield* Deferred.make<AbortSignal | undefined>()
      let abortedSeen = false
      faux.script(
        ({ options }) =>
          new Promise((resolve) => {
            const signal = options?.signal
            Effect.runSync(Deferred.succeed(started, signal))
            signal?.addEventListener("abort", () => {
              abortedSeen = true
              resolve(toolReply(["a.md"]))
            })
          })
      )
      const fiber = yield* Effect.fork(select().pipe(Effect.provide(faux.selector)))
      const signal = yield* Deferred.await(started)
      expect(signal?.aborted).toBe(false)
      const exit = yield* Fiber.interrupt(fiber)
      // Cancellation is interruption: no value, no failure, no defect — hence no warning can be shown.
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)).toBe(true)
      expect(signal?.aborted).toBe(true)
      expect(abortedSeen).toBe(true)
    })
  )

  it.effect("a request aborted by the provider's own signal while it is pending gives [] silently", () =>
    Effect.gen(function* () {
      // The backend owns an abort controller of its own (as a provider with its own timeout would); the scripted
      // step fires it while the request is pending and answers once the abort arrives. No timers.
      const faux = makeFaux()
      let abortOwn: (() => void) | undefined
      const registry = ModelRegistry.layerWith({
        ...faux.backend,
        complete: (model, context, options) => {
          const controller = new AbortController()
          ;(options["signal"] as AbortSignal).addEventListener("abort", () => controller.abort())
          abortOwn = () => controller.abort()
          return faux.backend.complete(model, context, { ...options, signal: controller.signal })
        }
      })
      faux.script(
        ({ options }) =>
          new Promise((resolve) => {
            options?.signal?.addEventListener("abort", () => resolve(toolReply(["a.md"])))
            abortOwn?.()
          })
      )
      const out = yield* select().pipe(Effect.provide(Selector.layer.pipe(Layer.provide(registry))))
      expect(out).toStrictEqual({ selected: [], warning: undefined, requests: 1, failure: new SelectionFailed({ reason: "Aborted", detail: "" }) })
    })
  )
})

describe("Selector: schema retry", () => {
  const rejection = "400 Bad Request: strict json_schema is not supported for this model"

  it.effect("a strict-schema rejection gets exactly one more request, without constrained sampling, on the same model", () => {
    const faux = makeFaux()
    faux.script(errorReply(rejection), toolReply(["b.md"]), toolReply(["c.md"]))
    return select().pipe(
      Effect.tap((out) => {
        expect(out).toStrictEqual({ selected: ["b.md"], warning: undefined, requests: 2 })
        expect(faux.requests).toHaveLength(2)
        const [first, second] = faux.requests
        expect(toolsOf(first!)[0]?.["constrainedSampling"]).toStrictEqual({ type: "json_schema", strict: "prefer" })
        expect(toolsOf(second!)[0]?.["constrainedSampling"]).toBe(false)
        expect(second!.model.id).toBe("faux-1")
        expect(second!.model.provider).toBe("faux")
        // Same messages and prompt, same session id: only the tool's sampling mode changes.
        expect(conversationOf(second!)).toStrictEqual(conversationOf(first!))
        expect(second!.options?.sessionId).toBe("session-1")
        expect(faux.pending()).toBe(1)
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("the retry failing too: [] plus one warning, still two requests, never another model", () => {
    const faux = makeFaux()
    faux.script(errorReply(rejection), errorReply(rejection), toolReply(["c.md"]))
    return select().pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual([])
        expect(out.requests).toBe(2)
        expect(out.warning).toMatch(/json_schema is not supported/)
        expect(faux.requests.map((r) => r.model.id)).toStrictEqual(["faux-1", "faux-1"])
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("a plain request failure is not retried", () => {
    const faux = makeFaux()
    faux.script(errorReply("500 internal server error"), toolReply(["c.md"]))
    return select().pipe(
      Effect.tap((out) => {
        expect(out).toStrictEqual({
          selected: [],
          warning: "Memory recall skipped: the request failed: 500 internal server error.",
          requests: 1,
          failure: new SelectionFailed({ reason: "RequestFailed", detail: "500 internal server error" })
        })
        expect(faux.callCount()).toBe(1)
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("a successful reply with bad content is not retried (no second tool request)", () => {
    const faux = makeFaux()
    faux.script(textReply("no idea"), toolReply(["c.md"]))
    return select().pipe(
      Effect.tap((out) => {
        expect(out.requests).toBe(1)
        expect(faux.callCount()).toBe(1)
      }),
      Effect.provide(faux.selector)
    )
  })
})

describe("Selector: suppression of files read in full", () => {
  it.effect("a file read at its current mtime is filtered; one changed since is not", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md", "b.md", "c.md"]))
    const a = topics[0]!
    const b = topics[1]!
    const state = withRead(withRead(emptyRecallState, { filename: "a.md", mtimeMs: a.fileMtimeMs }), { filename: "b.md", mtimeMs: b.fileMtimeMs - 1 })
    return select(request({ state })).pipe(
      Effect.tap((out) => expect(out.selected).toStrictEqual(["b.md", "c.md"])),
      Effect.provide(faux.selector)
    )
  })

  it.effect("suppression compares the file mtime, not the catalog (frontmatter) date", () => {
    const faux = makeFaux()
    faux.script(toolReply(["b.md"]))
    const b = topics[1]!
    expect(b.mtimeMs).not.toBe(b.fileMtimeMs)
    const state = withRead(emptyRecallState, { filename: "b.md", mtimeMs: b.mtimeMs })
    return select(request({ state })).pipe(
      Effect.tap((out) => expect(out.selected).toStrictEqual(["b.md"])),
      Effect.provide(faux.selector)
    )
  })
})

describe("Selector: the exact request", () => {
  const catalogText = [
    "- [project] a.md (2025-01-01): About a",
    "- b.md (2025-01-01): About b",
    "- [project] c.md (2025-01-01): About c",
    "- d.md (2025-01-01): About d",
    "- [project] e.md (2025-01-01): About e",
    "- f.md (2025-01-01): About f",
    "- [project] g.md (2025-01-01): About g"
  ].join("\n")

  it.effect("system prompt, catalog, tool schema, maxTokens, cacheRetention, session id", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md"]))
    return select().pipe(
      Effect.tap(() => {
        const [r] = faux.requests
        expect(systemPromptOf(r!)).toBe(fixture)
        expect(conversationOf(r!)).toStrictEqual([
          { role: "user", text: `Available memories:\n${catalogText}\n\nUser message:\nhow do we release` }
        ])
        expect(toolsOf(r!)).toStrictEqual([
          {
            name: "select_memories",
            description:
              "Report the filenames of the memories that are relevant to the user's current message (at most 5; an empty list when none are).",
            parameters: {
              type: "object",
              properties: { selected_memories: { type: "array", items: { type: "string" } } },
              required: ["selected_memories"],
              additionalProperties: false
            },
            constrainedSampling: { type: "json_schema", strict: "prefer" }
          }
        ])
        expect(r!.options?.maxTokens).toBe(512)
        expect(r!.options?.cacheRetention).toBe("short")
        expect(r!.options?.sessionId).toBe("session-1")
        expect(r!.options?.signal).toBeInstanceOf(AbortSignal)
        expect(r!.model.id).toBe("faux-1")
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("an unknown API gets no toolChoice (the prompt's instruction only)", () => {
    const faux = makeFaux()
    faux.script(toolReply(["a.md"]))
    return select().pipe(
      Effect.tap(() => expect(faux.requests[0]!.options).not.toHaveProperty("toolChoice")),
      Effect.provide(faux.selector)
    )
  })

  it.effect.each([
    ["anthropic-messages", { type: "tool", name: "select_memories" }],
    ["openai-completions", { type: "function", function: { name: "select_memories" } }],
    ["openai-responses", { type: "function", name: "select_memories" }],
    ["google-generative-ai", "any"]
  ] as const)("the tool call is forced in the %s spelling", ([api, choice]) => {
    const faux = makeFaux({ api })
    faux.script(toolReply(["a.md"]))
    return select().pipe(
      Effect.tap((out) => {
        expect(out.selected).toStrictEqual(["a.md"])
        expect((faux.requests[0]!.options as Record<string, unknown>)["toolChoice"]).toStrictEqual(choice)
      }),
      Effect.provide(faux.selector)
    )
  })

  it.effect("history: earlier queries and answers in order; the first user message is byte-identical across calls", () =>
    Effect.gen(function* () {
      const faux = makeFaux()
      faux.script(toolReply(["a.md"]), toolReply([]), toolReply(["c.md"]))
      let state = emptyRecallState
      for (const query of ["first question here", "second question here", "third question here"]) {
        const out = yield* select(request({ query, state })).pipe(Effect.provide(faux.selector))
        state = withRecall(state, { query, selected: out.selected, budgetUsed: 0 })
      }
      const [one, two, three] = faux.requests.map(conversationOf)
      const head = `Available memories:\n${catalogText}\n\nUser message:\nfirst question here`
      expect(one).toStrictEqual([{ role: "user", text: head }])
      expect(two).toStrictEqual([
        { role: "user", text: head },
        { role: "assistant", text: '{"selected_memories":["a.md"]}' },
        { role: "user", text: "User message:\nsecond question here" }
      ])
      expect(three).toStrictEqual([
        { role: "user", text: head },
        { role: "assistant", text: '{"selected_memories":["a.md"]}' },
        { role: "user", text: "User message:\nsecond question here" },
        { role: "assistant", text: '{"selected_memories":[]}' },
        { role: "user", text: "User message:\nthird question here" }
      ])
      // The whole earlier request is a prefix of the next one (system prompt and tools included).
      expect(systemPromptOf(faux.requests[2]!)).toBe(systemPromptOf(faux.requests[0]!))
      expect(toolsOf(faux.requests[2]!)).toStrictEqual(toolsOf(faux.requests[0]!))
      expect(new Set(faux.requests.map((r) => r.options?.sessionId))).toStrictEqual(new Set(["session-1"]))
    })
  )

  it.effect("only a real catalog change alters the first user message", () =>
    Effect.gen(function* () {
      const faux = makeFaux()
      faux.script(toolReply([]), toolReply([]), toolReply([]))
      yield* select(request({ query: "same words here" })).pipe(Effect.provide(faux.selector))
      yield* select(request({ query: "same words here", topics: [...topics] })).pipe(Effect.provide(faux.selector))
      yield* select(request({ query: "same words here", topics: [{ ...topics[0]!, description: "Changed" }, ...topics.slice(1)] })).pipe(
        Effect.provide(faux.selector)
      )
      const first = faux.requests.map((r) => conversationOf(r)[0]!.text)
      expect(first[1]).toBe(first[0])
      expect(first[2]).not.toBe(first[0])
      expect(first[2]).toContain("- [project] a.md (2025-01-01): Changed")
    })
  )

  it.effect("usage totals add up across requests, the schema retry included", () => {
    const faux = makeFaux()
    faux.script(errorReply("strict json_schema is not supported"), toolReply(["a.md"]), toolReply([]))
    const shared = Layer.merge(faux.registry, Selector.layer.pipe(Layer.provide(faux.registry)))
    return Effect.gen(function* () {
      yield* select()
      yield* select(request({ query: "another question" }))
      const totals = yield* Effect.flatMap(ModelRegistry, (r) => r.totals)
      expect(totals.requests).toBe(3)
      expect(totals.output).toBeGreaterThan(0)
      expect(totals.input + totals.cacheRead + totals.cacheWrite).toBeGreaterThan(0)
    }).pipe(Effect.provide(shared))
  })
})
