/**
 * How a background task's request is built from the parent's (pure): whether it may reuse the parent's prefix (a
 * fork) or must stand alone (independent), and what crosses over between models.
 */

/** Deep JSON equality ignoring object key order at every depth; values and array order must match. */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as ReadonlyArray<unknown>
    return a.length === bb.length && a.every((x, i) => sameJson(x, bb[i]))
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined)
  const bkeys = Object.keys(bo).filter((k) => bo[k] !== undefined)
  return keys.length === bkeys.length && keys.every((k) => Object.hasOwn(bo, k) && sameJson(ao[k], bo[k]))
}

export interface ToolDeclaration {
  readonly name: string
  readonly parameters: unknown
}

export interface ModelIdentity {
  readonly provider: string
  readonly api: string
  readonly id: string
}

export type ForkVerdict = { readonly fork: true } | { readonly fork: false; readonly reason: string }

/**
 * A fork needs a captured parent request from the same provider, API and model, and every parent tool that shares a
 * name with one of ours must declare the same parameters (the model would otherwise call ours with the parent's
 * schema).
 */
export const forkVerdict = (
  parent: { readonly model: ModelIdentity; readonly tools: ReadonlyArray<ToolDeclaration> } | undefined,
  task: { readonly model: ModelIdentity; readonly tools: ReadonlyArray<ToolDeclaration> }
): ForkVerdict => {
  if (parent === undefined) return { fork: false, reason: "no parent request was captured" }
  const p = parent.model
  const t = task.model
  if (p.provider !== t.provider || p.api !== t.api || p.id !== t.id) return { fork: false, reason: "another model" }
  for (const ours of task.tools) {
    const theirs = parent.tools.find((d) => d.name === ours.name)
    if (theirs !== undefined && !sameJson(theirs.parameters, ours.parameters)) {
      return { fork: false, reason: `the parent's ${ours.name} tool has another schema` }
    }
  }
  // A fork offers only the tools the parent declares: with none that can change memory it could save nothing.
  if (!forkTools(parent.tools, task.tools).some((name) => WRITING_TOOLS.has(name))) {
    return { fork: false, reason: "the parent declares no tool that can write memory" }
  }
  return { fork: true }
}

const WRITING_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "codemode"])

/**
 * The task's tools a fork can offer: those the parent's request declares (a fork sends the parent's declarations
 * unchanged, for its cache prefix), in the task's order. The tools section and the runnable set are both this list.
 */
export const forkTools = (parentTools: ReadonlyArray<ToolDeclaration>, ours: ReadonlyArray<ToolDeclaration>): ReadonlyArray<string> =>
  ours.filter((t) => parentTools.some((p) => p.name === t.name)).map((t) => t.name)

interface AssistantLike {
  readonly role: string
  readonly provider?: string
  readonly api?: string
  readonly model?: string
  readonly content?: unknown
}

/**
 * Messages written by another model lose their thinking blocks and provider signatures: a provider rejects or
 * misreads another's. Messages of the task's own model are kept as they are.
 */
export const stripForeignReasoning = <M extends AssistantLike>(messages: ReadonlyArray<M>, model: ModelIdentity): Array<M> =>
  messages.map((m) => {
    if (m.role !== "assistant" || !Array.isArray(m.content)) return m
    if (m.provider === model.provider && m.api === model.api && m.model === model.id) return m
    const content = (m.content as ReadonlyArray<Record<string, unknown>>)
      .filter((b) => b["type"] !== "thinking" && b["type"] !== "redacted_thinking")
      .map((b) => {
        const { textSignature: _t, thoughtSignature: _s, thinkingSignature: _h, ...rest } = b
        return rest
      })
    return { ...m, content }
  })
