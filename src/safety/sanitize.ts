/** sanitizeMemoryText (DECISIONS D5): what memory text must look like before it reaches a model. Pure. */

/** Tags the extension emits. Memory text must never be able to open or close one of them. */
export const RESERVED_TAGS = ["system-reminder", "auto_memory", "auto_memory_index", "auto_memory_notice", "auto_memory_date", "memory_recall"] as const

/** `<` and characters that render like it. */
const LT_LOOKALIKES = "<\uFF1C\uFE64\u2039\u3008\u27E8\u276E\u02C2\u2329\u1438"

const reservedTag = new RegExp(
  `[${LT_LOOKALIKES}](\\s*/?\\s*)(?=(?:${RESERVED_TAGS.join("|")})(?![A-Za-z0-9_-]))`,
  "giu"
)

/**
 * Removed: C0/C1 controls except tab and newline (CR included: injected text uses \n), bidi embeddings, overrides
 * and isolates, zero-width and other invisible format characters (Unicode Cf), the BOM, and lone surrogates
 * (dropped rather than turned into U+FFFD). The zero-width joiner is Cf too: removing it splits an emoji sequence
 * into its visible parts, a harmless loss for a rule with no exceptions.
 */
const invisible = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\p{Cf}\uFEFF\u2028\u2029\u115F\u1160\u3164\uFFA0]|\p{Cs}/gu

export const sanitizeMemoryText = (text: string): string =>
  text.replace(/\r\n?/g, "\n").replace(invisible, "").replace(reservedTag, "&lt;$1")

/**
 * A `<system-reminder>` block. Its text goes through the sanitizer whatever it carries (memory text, file names, our
 * own notes): one route into the model's context, so no caller can forget it.
 */
export const systemReminder = (text: string): string => `<system-reminder>\n${sanitizeMemoryText(text)}\n</system-reminder>`
