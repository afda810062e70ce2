/**
 * The credential guard for the main agent's `write` and `edit` into memory, decided before the tool runs. Pure: the
 * caller passes the file's current text for an edit.
 *
 * A write is judged on its content. An edit is judged on the file it would leave, computed as an exact replacement
 * of each `oldText` (what Pi's edit does when the text matches exactly); only credentials the file did not already
 * hold count, so a file with a secret written by hand can still be edited elsewhere. When the edit does not apply
 * exactly (Pi may still match it loosely), each `newText` is judged on its own.
 */
import { applyEdits, type Replacement } from "./readBaseline.ts"
import { detectSecrets, secretRefusalReason } from "../safety/secrets.ts"
import type { SecretFinding } from "../safety/secrets/kinds.ts"

/** The replacements of an edit call: Pi's `edits` array, or the single `oldText`/`newText` pair older callers send. */
export const editReplacements = (input: Record<string, unknown>): ReadonlyArray<Replacement> => {
  const pair = (e: unknown): Replacement | undefined => {
    if (typeof e !== "object" || e === null) return undefined
    const { oldText, newText } = e as Record<string, unknown>
    return typeof oldText === "string" && typeof newText === "string" ? { oldText, newText } : undefined
  }
  const list = Array.isArray(input["edits"]) ? input["edits"].map(pair) : [pair(input)]
  return list.filter((r): r is Replacement => r !== undefined)
}

/** Findings of `after` beyond those `before` already had, counted per kind. */
export const newFindings = (before: string, after: string): Array<SecretFinding> => {
  const had = new Map<string, number>()
  for (const f of detectSecrets(before)) had.set(f.kind, (had.get(f.kind) ?? 0) + 1)
  return detectSecrets(after).filter((f) => {
    const left = had.get(f.kind) ?? 0
    if (left === 0) return true
    had.set(f.kind, left - 1)
    return false
  })
}

/**
 * The refusal for a `write`/`edit` of `fileLabel` in memory, or undefined when it holds no new credential.
 * `current` is the file's text for an edit (undefined when it could not be read).
 */
export const credentialInWrite = (
  toolName: string,
  input: Record<string, unknown>,
  current: string | undefined,
  fileLabel: string
): string | undefined => {
  if (toolName === "write") {
    const content = typeof input["content"] === "string" ? input["content"] : ""
    const findings = detectSecrets(content)
    return findings.length === 0 ? undefined : secretRefusalReason(findings, fileLabel)
  }
  if (toolName !== "edit") return undefined
  const edits = editReplacements(input)
  if (current !== undefined) {
    const applied = applyEdits(current, edits)
    if (applied._tag === "Applied") {
      const added = newFindings(current, applied.content)
      return added.length === 0 ? undefined : secretRefusalReason(added, fileLabel)
    }
  }
  const findings = edits.flatMap((e) => detectSecrets(e.newText))
  return findings.length === 0 ? undefined : secretRefusalReason(findings, fileLabel)
}
