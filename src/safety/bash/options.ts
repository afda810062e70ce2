/**
 * A getopt-style reading of a command's arguments, so an option is recognised in every spelling (DECISIONS D7):
 * combined short flags (`-roout`), attached values (`-ofile`), `--opt=value` and `--opt value`, and unambiguous
 * prefixes of long options (`--out=`). Backslashes are already gone: words arrive resolved.
 *
 * The reading errs towards rejection: an unknown character in a cluster is read as a flag (so the rest of the cluster
 * is still checked), and a prefix of any forbidden long option is rejected even where the program would call it
 * ambiguous.
 *
 * Where the guard cannot know whether an option takes a value (an option it does not know, or an abbreviation in a
 * non-strict spec, whose program may have an exact option of that name), it never takes the next word as the value:
 * that word is read as an option again, and is marked `uncertain` (it may be a value, so it cannot switch a command
 * into a harmless form), and a `--` there does not end the options (the program may take it as the value).
 */
import { show, type Word } from "./words.ts"

/** `pair`: the option takes the next two words (jq's `--arg NAME VALUE`). */
export type ArgKind = "none" | "required" | "optional" | "pair"

export interface OptionSpec {
  /** Short options that take a value, attached (`-k2`) or as the next word (`-k 2`). */
  readonly shortArg?: string
  /** Short options whose value is optional and only attached (`-i[SUFFIX]`). */
  readonly shortOptArg?: string
  /** Short flags known to take no value. With `strict`, the only other short options allowed; otherwise they tell
   *  the guard that such a flag at the end of a cluster cannot take the next word as its value. */
  readonly shortFlags?: string
  /** Known long options (without `--`). */
  readonly long?: Readonly<Record<string, ArgKind>>
  /** Forbidden short options: character -> what it does. */
  readonly badShort?: Readonly<Record<string, string>>
  /** Forbidden long options (without `--`): name -> what it does. */
  readonly badLong?: Readonly<Record<string, string>>
  /** Unknown options are rejected instead of read as harmless flags. */
  readonly strict?: boolean
  /** Options end at the first operand (no GNU argument permutation). */
  readonly stopAtOperand?: boolean
  /** `--no-NAME` turns NAME off (git, ripgrep): the negation of a forbidden option is harmless. */
  readonly negation?: boolean
  /** A word holding a glob that starts with `-`-capable text could expand to an option; set for commands with
   *  forbidden options or dangerous operand positions. Derived from badShort/badLong when absent. */
  readonly risky?: boolean
  /** `--name=PATTERN` may hold a wildcard (grep's --include=*.ts): every expansion still starts with `--name=`, and
   *  the program reads the value as a pattern the guard does not interpret. Off by default: a value is never a glob. */
  readonly globValues?: boolean
}

export interface ParsedOption {
  /** Canonical spelling: `-o` or `--output`. */
  readonly name: string
  readonly value: Word | undefined
  /** The word the option came from. */
  readonly word: Word
}

export interface ParsedArgs {
  readonly options: ReadonlyArray<ParsedOption>
  readonly operands: ReadonlyArray<Word>
  /** True when options had ended by the last word (`--` seen, or an operand under stopAtOperand). */
  readonly closed: boolean
  /** Index (into the input words) where options ended, or -1. */
  readonly closedAt: number
  /** Words right after an option the guard could not tell takes a value: each may be that option's value. */
  readonly uncertain: ReadonlySet<Word>
}

export interface Rejected {
  readonly reject: string
}

export const isRejected = (x: unknown): x is Rejected => typeof x === "object" && x !== null && "reject" in x

/** " (in `-roout`)" when the option was spelled inside a longer or escaped word. */
const inWord = (option: string, word: Word): string => (word.raw === option ? "" : ` (in ${show(word)})`)

/**
 * `--include=*.ts`: a wildcard only in the value of a long option can expand only to names that start with the same
 * `--name=`, so the option stays the same. Anywhere else (`-r*`, `--pre*`) the expansion could spell another option.
 */
const globOnlyInValue = (v: string): boolean => {
  if (!v.startsWith("--")) return false
  const eq = v.indexOf("=")
  return eq > 2 && !/[*?[]/.test(v.slice(0, eq))
}

const globValue = (cmd: string, option: string, value: Word): Rejected => ({
  reject: `\`${cmd}\`: the value of \`${option}\`, ${show(value)}, holds an unquoted wildcard, which could expand into several words (the extra ones read as options or operands); quote it`
})

const isRisky = (spec: OptionSpec): boolean =>
  spec.risky ?? (spec.badShort !== undefined || spec.badLong !== undefined)

/** Long option lookup: exact, then forbidden prefix, then unique known prefix. */
const matchLong = (
  cmd: string,
  spec: OptionSpec,
  name: string,
  word: Word
): { readonly name: string; readonly kind: ArgKind; readonly certain: boolean } | Rejected => {
  const bad = spec.badLong
  if (bad !== undefined && Object.hasOwn(bad, name)) {
    return { reject: `\`${cmd}\`: option \`--${name}\` ${bad[name]}${inWord(`--${name}`, word)}` }
  }
  const long = spec.long
  if (long !== undefined && Object.hasOwn(long, name)) return { name, kind: long[name]!, certain: true }
  if (spec.negation === true && name.startsWith("no-")) {
    // `--no-ext-diff` switches a forbidden option off: harmless. Its value (if any) is ignored by the program.
    return { name, kind: "none", certain: true }
  }
  if (bad !== undefined) {
    for (const b of Object.keys(bad)) {
      if (b.startsWith(name)) {
        return {
          reject: `\`${cmd}\`: \`--${name}\` abbreviates \`--${b}\`, which ${bad[b]}${inWord(`--${name}`, word)}`
        }
      }
    }
  }
  if (long !== undefined) {
    let found: string | undefined
    let count = 0
    for (const l of Object.keys(long)) {
      if (l.startsWith(name)) {
        found = l
        count++
      }
    }
    // Only a strict spec lists every option, so only there is a unique prefix surely that option: elsewhere the
    // program may have an exact option of that name (rg's flag `--ignore` beside `--ignore-file FILE`).
    if (count === 1) return { name: found!, kind: long[found!]!, certain: spec.strict === true }
    if (count > 1 && spec.strict === true) {
      return { reject: `\`${cmd}\`: \`--${name}\` is an ambiguous abbreviation; spell the option out` }
    }
  }
  if (spec.strict === true) {
    return { reject: `\`${cmd}\`: option \`--${name}\` is not one this guard knows to be read-only for ${cmd}` }
  }
  return { name, kind: "none", certain: false }
}

/**
 * Reads words as options and operands. `words` excludes the command name.
 * Also rejects option words holding a wildcard, and (for risky commands) operands that start with a wildcard while
 * options are still being read: either could expand into an option the check never saw.
 */
export const scanOptions = (cmd: string, words: ReadonlyArray<Word>, spec: OptionSpec): ParsedArgs | Rejected => {
  const options: Array<ParsedOption> = []
  const operands: Array<Word> = []
  const uncertain = new Set<Word>()
  const risky = isRisky(spec)
  let closedAt = -1
  /** The previous word is an option that may take this word as its value (the guard could not tell). */
  let pending = false
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const v = word.value
    const maybeValue = pending && closedAt < 0
    pending = false
    if (maybeValue) {
      uncertain.add(word)
      if (word.glob && risky) return globValue(cmd, words[i - 1]!.value, word)
    }
    if (closedAt >= 0 || v.length < 2 || v[0] !== "-") {
      if (closedAt < 0 && risky && word.leadingGlob) {
        return {
          reject: `\`${cmd}\`: ${show(word)} starts with a wildcard, so it could expand to a file name that ${cmd} reads as an option; write \`./${word.value}\` or put \`--\` before it`
        }
      }
      operands.push(word)
      if (closedAt < 0 && spec.stopAtOperand === true && !maybeValue) closedAt = i
      continue
    }
    if (word.glob && !(spec.globValues === true && globOnlyInValue(v))) {
      return { reject: `\`${cmd}\`: option word ${show(word)} holds a wildcard; write the option literally (quote a pattern value: --name='*.ts')` }
    }
    if (v === "--") {
      // After an option that may take a value, `--` may be that value: options go on.
      if (!maybeValue) closedAt = i
      continue
    }
    if (v[1] === "-") {
      const eq = v.indexOf("=")
      const name = eq < 0 ? v.slice(2) : v.slice(2, eq)
      const m = matchLong(cmd, spec, name, word)
      if (isRejected(m)) return m
      let value: Word | undefined
      if (eq >= 0) {
        value = { ...word, value: v.slice(eq + 1) }
      } else if ((m.kind === "required" || m.kind === "pair") && m.certain && !maybeValue) {
        value = words[i + 1]
        if (value?.glob === true) return globValue(cmd, `--${m.name}`, value)
        i++
        if (m.kind === "pair") {
          const second = words[i + 1]
          if (second?.glob === true) return globValue(cmd, `--${m.name}`, second)
          i++
        }
      } else if (m.kind === "required" || m.kind === "pair" || !m.certain) {
        pending = true
      }
      options.push({ name: `--${m.name}`, value, word })
      continue
    }
    // A cluster of short options.
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!
      const why = spec.badShort?.[c]
      if (why !== undefined && Object.hasOwn(spec.badShort!, c)) {
        return {
          reject: `\`${cmd}\`: option \`-${c}\` ${why}${inWord(`-${c}`, word)}`
        }
      }
      if (spec.shortArg?.includes(c) === true) {
        const rest = v.slice(j + 1)
        let value: Word | undefined
        if (rest.length > 0) value = { ...word, value: rest }
        else if (maybeValue) pending = true
        else {
          value = words[i + 1]
          if (value?.glob === true) return globValue(cmd, `-${c}`, value)
          i++
        }
        options.push({ name: `-${c}`, value, word })
        break
      }
      if (spec.shortOptArg?.includes(c) === true) {
        const rest = v.slice(j + 1)
        options.push({ name: `-${c}`, value: rest.length > 0 ? { ...word, value: rest } : undefined, word })
        break
      }
      const knownFlag = spec.shortFlags?.includes(c) === true
      if (spec.strict === true && !knownFlag) {
        return {
          reject: `\`${cmd}\`: option \`-${c}\`${v.length > 2 ? ` (in ${show(word)})` : ""} is not one this guard knows to be read-only for ${cmd}`
        }
      }
      // An unknown last letter may be an option that takes the next word as its value.
      if (!knownFlag && j === v.length - 1) pending = true
      options.push({ name: `-${c}`, value: undefined, word })
    }
  }
  return { options, operands, closed: closedAt >= 0, closedAt, uncertain }
}

/** True when the parsed options include one of the names (canonical spellings), each given certainly as an option,
 *  not possibly as the value of the option before it: every caller uses it to allow a harmless form. */
export const hasOption = (parsed: ParsedArgs, ...names: ReadonlyArray<string>): boolean =>
  parsed.options.some((o) => names.includes(o.name) && !parsed.uncertain.has(o.word))
