/**
 * A raw scan of the command text before it is parsed, for everything where tree-sitter-bash and bash could split
 * the text differently: comments, control characters, escaped blanks, Unicode blanks, and the constructs that open a
 * nested quoting context (`$(`, backticks, `${`, here-documents).
 *
 * The scan follows bash's own quoting rules (single quotes, double quotes with `\` escapes, `$'...'` with `\`
 * escapes, `\x` outside quotes) and nothing else, so it does not depend on the parser: whatever the tree says about
 * comments, a `#` that bash could read as the start of a comment rejects the command here. Nothing a read-only
 * command needs is lost: a `#` inside a word (`a#b`) or inside quotes stays allowed.
 *
 * One pass, constant work per character.
 */

/** Characters after which an unquoted `#` is surely inside a word for bash and for tree-sitter-bash alike. */
const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || // 0-9
  (c >= 65 && c <= 90) || // A-Z
  (c >= 97 && c <= 122) || // a-z
  c === 95 /* _ */ ||
  c === 46 /* . */ ||
  c === 47 /* / */ ||
  c === 58 /* : */ ||
  c === 61 /* = */ ||
  c === 43 /* + */ ||
  c === 44 /* , */ ||
  c === 37 /* % */ ||
  c === 64 /* @ */ ||
  c === 45 /* - */

/** Characters of bash's operators: `< > & | ; ( )`. */
const isOperatorChar = (c: number): boolean =>
  c === 60 || c === 62 || c === 38 || c === 124 || c === 59 || c === 40 || c === 41

/** Blanks and line breaks outside ASCII: bash reads them as word characters, a grammar built on `\s` as blanks. */
export const isUnicodeBlank = (c: number): boolean =>
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200b) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** A control character other than tab and newline (C0, DEL, C1). */
export const isForbiddenControl = (c: number): boolean => (c < 0x20 && c !== 9 && c !== 10) || (c >= 0x7f && c <= 0x9f)

const CONTROL_NAMES: Readonly<Record<number, string>> = {
  0: "NUL",
  11: "vertical tab",
  12: "form feed",
  13: "carriage return",
  27: "escape"
}

const controlName = (c: number): string => CONTROL_NAMES[c] ?? `U+${c.toString(16).toUpperCase().padStart(4, "0")}`

const NORMAL = 0
const SINGLE = 1
const DOUBLE = 2
const ANSI = 3

/** Context for a message: a few characters around an offset, with line breaks shown. */
const near = (s: string, at: number): string =>
  s
    .slice(Math.max(0, at - 12), Math.min(s.length, at + 12))
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)

/** `$(`, `$((`, `${`, `$[` at i: they open a nested quoting context, so the scan stops there. */
const expansionReason = (s: string, i: number): string => {
  const d = s[i + 1]
  const what =
    d === "{" ? "parameter expansion" : d === "[" || s[i + 2] === "(" ? "arithmetic expansion" : "command substitution"
  const close = s.indexOf(d === "{" ? "}" : d === "[" ? "]" : ")", i + 2)
  const shown = close >= 0 && close - i < 60 ? s.slice(i, s[close + 1] === ")" ? close + 2 : close + 1) : `${s.slice(i, i + 3)}...`
  return `\`${shown}\` is ${what}, which is computed when the shell runs; write the value literally`
}

/** Nothing but blanks and line breaks after the first line break from `at` (a comment there runs to the end). */
const trailing = (s: string, at: number): boolean => {
  const nl = s.indexOf("\n", at)
  if (nl < 0) return true
  for (let i = nl; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 10 && c !== 32 && c !== 9) return false
  }
  return true
}

/**
 * Returns a reason when the raw text holds something the parser and bash could read differently, else undefined.
 * `steps` (optional) counts loop iterations, so tests can check the scan is linear without timing it.
 */
export const prescan = (s: string, steps?: { count: number }, comment?: { cut: number }): string | undefined => {
  let state = NORMAL
  const n = s.length
  let i = 0
  /** Offset of the last blank bash saw as a blank (unquoted, unescaped). */
  let lastBlank = -2
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (isForbiddenControl(c)) {
      return `the command holds a control character (${controlName(c)}) near \`${near(s, i)}\`; only tab and newline are allowed`
    }
    if (state === SINGLE) {
      if (c === 39 /* ' */) state = NORMAL
      continue
    }
    if (state === ANSI) {
      if (c === 92 /* \\ */) i++
      else if (c === 39) state = NORMAL
      continue
    }
    if (state === DOUBLE) {
      if (c === 92) i++
      else if (c === 34 /* " */) state = NORMAL
      else if (c === 96 /* ` */) return "a backtick is command substitution, which is not allowed"
      else if (c === 36 /* $ */) {
        const d = s.charCodeAt(i + 1)
        if (d === 40 || d === 123 || d === 91) return expansionReason(s, i)
        if (d === 36) i++
      }
      continue
    }
    // Unquoted text.
    switch (c) {
      case 92 /* \\ */: {
        const d = s.charCodeAt(i + 1)
        if (d === 10) {
          const before = s.charCodeAt(i - 1)
          const after = s.charCodeAt(i + 2)
          if (before === 35 || after === 35) {
            return `a line continuation next to \`#\` near \`${near(s, i)}\` can be read as a comment; join the line`
          }
          // bash removes the continuation before reading operators, so `<\<newline><` is a here-document and
          // `&\<newline>&` is `&&`; the parser may read them apart.
          if (isOperatorChar(before) || isOperatorChar(after)) {
            return `a line continuation touching an operator near \`${near(s, i)}\` can change the operator bash reads; put a space before the backslash`
          }
        } else if (d === 9 || isUnicodeBlank(d)) {
          return `an escaped tab or Unicode blank near \`${near(s, i)}\` is read differently by the guard's parser and bash; quote it ('...')`
        } else if (d === 32 && !isWordChar(s.charCodeAt(i - 1))) {
          return `an escaped space at the start of a word near \`${near(s, i)}\` is read differently by the guard's parser and bash; quote the word ('...')`
        }
        i++
        continue
      }
      case 39 /* ' */:
        state = SINGLE
        continue
      case 34 /* " */:
        state = DOUBLE
        continue
      case 96 /* ` */:
        return "a backtick is command substitution, which is not allowed"
      case 36 /* $ */: {
        const d = s.charCodeAt(i + 1)
        if (d === 39) {
          state = ANSI
          i++
        } else if (d === 34) return '`$"..."` (locale translation) is not allowed; use plain quotes'
        else if (d === 40 || d === 123 || d === 91) return expansionReason(s, i)
        else if (d === 36) i++
        continue
      }
      case 60 /* < */:
        if (s.charCodeAt(i + 1) === 60) return "here-documents (<<) and here-strings (<<<) are not allowed; pipe the text in with echo or printf instead"
        continue
      case 32 /* space */:
      case 9 /* tab */:
        lastBlank = i
        continue
      case 35 /* # */:
        if (comment !== undefined && (i === 0 || lastBlank === i - 1) && trailing(s, i)) {
          // A comment that runs to the end of the text: bash ignores all of it, so the text before it is the command.
          comment.cut = i
          if (steps !== undefined) steps.count += i
          return undefined
        }
        if (i === 0 || !isWordChar(s.charCodeAt(i - 1))) {
          return `\`#\` near \`${near(s, i)}\` starts a comment; comments are not allowed (remove it, or quote a literal # as '#')`
        }
        continue
      default:
        if (c > 0x7f && isUnicodeBlank(c)) {
          return `the command holds a Unicode blank or line separator (U+${c.toString(16).toUpperCase().padStart(4, "0")}) outside quotes near \`${near(s, i)}\`; use plain spaces`
        }
    }
  }
  if (steps !== undefined) steps.count += i
  return undefined
}
