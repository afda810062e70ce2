/**
 * Where a background write came from, judged in code against the conversation the task was given (and the tool
 * results the task itself read), never taken from the model's word. Pure.
 *
 * The evidence is labelled text: the user's messages, the assistant's, and each tool result with the tool and the
 * file, command or address it read. A write's substance is the lines it adds (lines of the new content not in the
 * file before). The judgement:
 *  - held: a run of PROVENANCE_SPAN_TOKENS words, or a code span (between backticks) of two words or more, that
 *    appears in a tool result and in no user message: the substance was copied from outside text;
 *  - held: an added line that reads as an instruction to do a risky act (src/safety/riskyActs.ts) the user's own
 *    messages do not ask for;
 *  - held: a `user` or `feedback` memory fewer than USER_SUPPORT_MIN_WORDS of whose distinctive words the user said
 *    (or confirmed: an assistant message answered by a short yes); a user who said fewer distinctive words than that
 *    supports it with all of theirs, never with none;
 *  - saved otherwise, with the source whose words it shares most (user first on a tie), or `model` when it shares
 *    none (the task's own summary).
 * The dream consolidates memory, not a conversation: only the risky-act rule applies to it (its source is `dream`).
 */
import { parseFrontmatter } from "../memory/frontmatter.ts"
import { PROVENANCE_SPAN_TOKENS, USER_SUPPORT_MIN_WORDS } from "../limits.ts"
import { riskyActsSentence, riskyInstructions } from "../safety/riskyActs.ts"

export type EvidenceKind = "user" | "assistant" | "tool"

export interface Evidence {
  readonly kind: EvidenceKind
  /** For a tool result: the tool and what it read (`read README.md`, `bash: cat notes.txt`); else the kind. */
  readonly label: string
  readonly text: string
}

export type Judgement =
  | { readonly _tag: "Save"; readonly source: string }
  | { readonly _tag: "Hold"; readonly source: string; readonly reason: string }

/** Words and the shell's operators, lowercased: what spans are compared on. */
export const tokens = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}_]+|[|&;<>$`]/gu) ?? []

const key = (words: ReadonlyArray<string>, from: number, n: number): string => words.slice(from, from + n).join(" ")

/** Every run of `n` tokens of `text`, joined by spaces. */
const runsOf = (text: string, n: number): Set<string> => {
  const words = tokens(text)
  const out = new Set<string>()
  for (let i = 0; i + n <= words.length; i++) out.add(key(words, i, n))
  return out
}

/** A token sequence inside a longer one (both as space-joined tokens, padded so words match whole). */
const containsRun = (haystack: string, needle: string): boolean => ` ${haystack} `.includes(` ${needle} `)

const STOP = new Set(
  ("the and that this with from into when what which where will would should must have been were they them their there " +
    "about always never also only more most some such than then these those very just each every over under after before " +
    "user users prefers prefer wants want likes like says said asked project memory note notes file files rule rules " +
    "because apply applies why how use uses used using make makes does done need needs")
    .split(" ")
)

/** Distinctive words: letters or digits, four or more, not common words nor the words every memory uses. */
export const distinctiveWords = (text: string): Set<string> =>
  new Set(tokens(text).filter((w) => w.length >= 4 && /^[\p{L}\p{N}_]+$/u.test(w) && !STOP.has(w)))

/** Lines of `after` not in `before` (trimmed, blank ones left out): what a write adds. */
export const addedLines = (before: string, after: string): Array<string> => {
  const had = new Set(before.split("\n").map((l) => l.trim()))
  return after.split("\n").map((l) => l.trim()).filter((l) => l !== "" && l !== "---" && !had.has(l))
}

const CONFIRMATION = /^\s*(?:yes|yep|yeah|ok|okay|sure|right|correct|exactly|agreed|please\s+do|do\s+that|go\s+ahead|sounds\s+good|that's\s+right)\b/i

/** The words the user said, and those of an assistant message the user confirmed with a short yes right after. */
const userWords = (evidence: ReadonlyArray<Evidence>): Set<string> => {
  const words = new Set<string>()
  evidence.forEach((e, i) => {
    if (e.kind === "user") for (const w of distinctiveWords(e.text)) words.add(w)
    const next = evidence.slice(i + 1).find((n) => n.kind !== "tool")
    if (e.kind === "assistant" && next?.kind === "user" && CONFIRMATION.test(next.text) && tokens(next.text).length <= 12) {
      for (const w of distinctiveWords(e.text)) words.add(w)
    }
  })
  return words
}

const codeSpans = (line: string): Array<string> =>
  [...line.matchAll(/`([^`\n]+)`/g)].map((m) => tokens(m[1]!).join(" ")).filter((c) => c.split(" ").length >= 2)

/**
 * A run or code span of `added` that appears in a tool result and in no user message, with that tool's label. Runs
 * are looked up in sets of every run of the evidence (one pass over it, whatever its size); code spans, of any length
 * and few, are searched in the evidence's text.
 */
export const copiedFromTool = (
  added: ReadonlyArray<string>,
  evidence: ReadonlyArray<Evidence>
): { readonly quote: string; readonly label: string } | undefined => {
  const tools = evidence.filter((e) => e.kind === "tool").map((e) => ({ label: e.label, joined: tokens(e.text).join(" ") }))
  if (tools.length === 0) return undefined
  const users = evidence.filter((e) => e.kind === "user")
  const user = users.map((e) => tokens(e.text).join(" ")).join(" \n ")
  const userRuns = new Set(users.flatMap((e) => [...runsOf(e.text, PROVENANCE_SPAN_TOKENS)]))
  const toolRuns = new Map<string, string>()
  for (const e of evidence) {
    if (e.kind !== "tool") continue
    for (const run of runsOf(e.text, PROVENANCE_SPAN_TOKENS)) if (!toolRuns.has(run)) toolRuns.set(run, e.label)
  }
  for (const line of added) {
    for (const code of codeSpans(line)) {
      if (containsRun(user, code)) continue
      const from = tools.find((t) => containsRun(t.joined, code))
      if (from !== undefined) return { quote: code, label: from.label }
    }
    for (const run of runsOf(line, PROVENANCE_SPAN_TOKENS)) {
      const label = toolRuns.get(run)
      if (label !== undefined && !userRuns.has(run)) return { quote: run, label }
    }
  }
  return undefined
}

/** The evidence whose distinctive words the added text shares most: user first on a tie, `model` when none. */
export const likelySource = (added: ReadonlyArray<string>, evidence: ReadonlyArray<Evidence>): string => {
  const words = distinctiveWords(added.join("\n"))
  let best = { score: 0, rank: 3, source: "model" }
  const rank: Record<EvidenceKind, number> = { user: 0, assistant: 1, tool: 2 }
  for (const e of evidence) {
    const mine = distinctiveWords(e.text)
    let score = 0
    for (const w of words) if (mine.has(w)) score++
    if (score > best.score || (score === best.score && score > 0 && rank[e.kind] < best.rank)) {
      best = { score, rank: rank[e.kind], source: e.kind === "tool" ? `tool: ${e.label}` : e.kind }
    }
  }
  return best.source
}

export interface WriteToJudge {
  /** The file relative to memory (`MEMORY.md` for the index). */
  readonly file: string
  /** The file's text before the write ("" for a new file) and the text the write would leave. */
  readonly before: string
  readonly after: string
  /** Which task writes: an extraction is judged against its conversation, the dream by the risky-act rule only. */
  readonly task: "extract" | "dream"
}

/** Whether a background write is saved (with its source) or held for the person's review (with the reason). */
export const judgeWrite = (write: WriteToJudge, evidence: ReadonlyArray<Evidence>): Judgement => {
  const added = addedLines(write.before, write.after)
  const source = write.task === "dream" ? "dream" : likelySource(added, evidence)
  if (added.length === 0) return { _tag: "Save", source }
  const userText = evidence.filter((e) => e.kind === "user").map((e) => e.text).join("\n")
  const askedFor = new Set(riskyInstructions(userText).map((f) => f.act))
  const risky = riskyInstructions(added.join("\n")).filter((f) => !askedFor.has(f.act))
  if (risky.length > 0) {
    return {
      _tag: "Hold",
      source,
      reason: `it reads as an instruction to do something risky (${riskyActsSentence(risky)}: "${risky[0]!.quote}") that the user did not ask for`
    }
  }
  if (write.task === "dream") return { _tag: "Save", source }
  const copied = copiedFromTool(added, evidence)
  if (copied !== undefined) {
    return {
      _tag: "Hold",
      source: `tool: ${copied.label}`,
      reason: `its words ("${copied.quote}") come from a tool result (${copied.label}), not from the user`
    }
  }
  const type = parseFrontmatter(write.after).type
  if (type === "user" || type === "feedback") {
    const said = userWords(evidence)
    const words = [...distinctiveWords(added.join("\n"))]
    const supported = words.filter((w) => said.has(w)).length
    // A user who said fewer distinctive words than the minimum ("I always use pnpm") supports it with all of them.
    if (supported === 0 || supported < Math.min(USER_SUPPORT_MIN_WORDS, words.length, said.size)) {
      return {
        _tag: "Hold",
        source,
        reason: `a ${type} memory comes only from what the user said or confirmed, and the user's messages hold ${supported === 0 ? "none" : `only ${supported}`} of its words`
      }
    }
  }
  return { _tag: "Save", source }
}
