/**
 * `remember TEXT` (`/memory remember`, `pm remember`): a person's explicit save, as one new topic file. Pure: the
 * file's name, header and body from the text, and the checks a background write passes (credentials, size, header),
 * and a text that reads as an instruction to do a risky act (src/safety/riskyActs.ts) refused unless the person says
 * `allowRisky` (`--allow-risky`).
 */
import { backgroundWriteRefusal } from "./backgroundWrite.ts"
import type { MemoryType } from "../memory/frontmatter.ts"
import { detectSecrets, secretRefusalReason } from "../safety/secrets.ts"
import { riskyActsSentence, riskyInstructions } from "../safety/riskyActs.ts"

export interface RememberedTopic {
  readonly filename: string
  readonly name: string
  readonly description: string
  /** The index line's hook: what the text says after its name, if anything (the name is the link's title). */
  readonly hook: string | undefined
  readonly content: string
}

const NAME_WORDS = 8
const NAME_MAX = 60
const SLUG_MAX = 40
const DESCRIPTION_MAX = 150

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim()

const cut = (s: string, max: number): string => {
  if (s.length <= max) return s
  const head = s.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "")
  const atWord = head.replace(/\s+\S*$/, "")
  return `${(atWord.length >= max / 2 ? atWord : head).trimEnd()}…`
}

/** A file stem from the first words: lowercase ASCII letters and digits joined by `-`, never only digits. */
export const slugOf = (text: string): string => {
  const words = oneLine(text)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
  let slug = ""
  for (const w of words) {
    const next = slug === "" ? w : `${slug}-${w}`
    if (next.length > SLUG_MAX) break
    slug = next
  }
  return slug === "" || /^\d+$/.test(slug) ? `note${slug === "" ? "" : `-${slug}`}` : slug
}

/**
 * A name not taken in `taken` (file names in the memory folder): `<slug>.md`, then `<slug>-b.md`, `-c`, ... (a letter,
 * not a number: `notes-2.md` would read as a continuation of `notes.md`).
 */
export const freeFilename = (slug: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(`${slug}.md`)) return `${slug}.md`
  for (let i = 1; ; i++) {
    let suffix = ""
    for (let n = i; n > 0; n = Math.floor((n - 1) / 26)) suffix = String.fromCharCode(97 + ((n - 1) % 26)) + suffix
    if (suffix === "a") continue
    const name = `${slug}-${suffix}.md`
    if (!taken.has(name)) return name
  }
}

const TEXT_LABEL = "the text to remember"

/** What `description` says after `name` (its first words), "…" first when the name was cut; undefined when nothing. */
const hookAfter = (name: string, description: string): string | undefined => {
  const cutName = name.endsWith("…")
  const base = cutName ? name.slice(0, -1) : name
  if (!description.startsWith(base)) return description
  const rest = description.slice(base.length).trim()
  return rest === "" ? undefined : cutName ? `…${rest}` : rest
}

/** The topic file for `text`, or why it may not be saved (nothing is written then). */
export const rememberedTopic = (
  text: string,
  type: MemoryType,
  taken: ReadonlySet<string>,
  /** The person confirmed a text that reads as an instruction to do a risky act (`--allow-risky`). */
  allowRisky = false
): { readonly _tag: "Topic"; readonly topic: RememberedTopic } | { readonly _tag: "Refused"; readonly reason: string } => {
  const body = text.replace(/\r\n?/g, "\n").trim()
  if (body === "") return { _tag: "Refused", reason: "nothing to remember: give the text to save" }
  const first = oneLine(body.split("\n")[0] ?? body)
  const name = cut(first.split(" ").slice(0, NAME_WORDS).join(" "), NAME_MAX)
  const description = cut(oneLine(body), DESCRIPTION_MAX)
  const filename = freeFilename(slugOf(body), taken)
  // JSON strings are YAML double-quoted scalars: a `#`, a `:` or a leading `-` stays text.
  const content = `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\nmetadata:\n  type: ${type}\n---\n${body}\n`
  const secrets = detectSecrets(content)
  if (secrets.length > 0) {
    // Named after the text's first words, the file name could hold the very credential: the refusal names the text,
    // and its lines as the person typed them.
    const inText = detectSecrets(body)
    const reason = secretRefusalReason(inText.length > 0 ? inText : secrets, TEXT_LABEL)
    return { _tag: "Refused", reason: reason.replace(`the content for ${TEXT_LABEL}`, TEXT_LABEL).replace(/, then retry\./, ", then try again.") }
  }
  const risky = riskyInstructions(body)
  if (risky.length > 0 && !allowRisky) {
    return {
      _tag: "Refused",
      reason: `nothing was saved: the text reads as an instruction to do something risky (${riskyActsSentence(risky)}: "${risky[0]!.quote}"), ` +
        "and memory reaches every later session. If you mean it, save it again with --allow-risky; a rule against it (\"never force-push\") is saved without."
    }
  }
  const unfit = backgroundWriteRefusal(filename, content)
  if (unfit !== undefined) return { _tag: "Refused", reason: unfit.replace("a background task may write at most", "a memory file may hold at most") }
  return { _tag: "Topic", topic: { filename, name, description, hook: hookAfter(name, description), content } }
}
