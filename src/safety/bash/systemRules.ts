/**
 * The rules' parts for programs that read system state and could change it: date (which sets the clock with an
 * operand or -s), file (which compiles magic files and runs decompressors) and cd (which moves the later commands).
 * Option specs and word checks only; the allowlist table that binds them to names is in commands.ts.
 */
import type { OptionSpec, ParsedArgs } from "./options.ts"
import { show } from "./words.ts"

export const DATE: OptionSpec = {
  strict: true,
  shortFlags: "Ru",
  shortArg: "dfr",
  shortOptArg: "I",
  badShort: { s: "sets the system clock" },
  badLong: { set: "sets the system clock" },
  long: {
    date: "required",
    file: "required",
    "iso-8601": "optional",
    "rfc-email": "none",
    "rfc-3339": "required",
    reference: "required",
    utc: "none",
    universal: "none",
    debug: "none",
    resolution: "none",
    help: "none",
    version: "none"
  }
}

/**
 * file, option by option:
 * - `-C`/`--compile` writes a compiled `.mgc` next to the magic file: refused.
 * - `-z`/`-Z`/`--uncompress*` starts decompression programs on the file's content: refused (they only read, but they
 *   are programs the guard does not check).
 * - `-m`/`--magic-file` loads magic from another file: allowed, since that only reads it (magic rules test bytes, they
 *   cannot run anything) and the file is a word the read plan checks against the protected paths.
 * - `-f`/`--files-from` reads the names to test from a file: allowed here, refused by the read plan (reads.ts),
 *   which cannot see the names inside.
 * - every other option only changes what is printed (`-b`, `-i`, `--mime-type`, `-L`, `-s`, `-P name=value` ...).
 *
 * Wildcard operands are allowed (`file *`, `file -i *.md`): not `risky`. A name such an expansion produces is read
 * as an option only if a file in the folder is named like one; of the options it could reach, the refused ones only
 * write (`-C`, which the read-only sandbox refuses) or run fixed decompressors inside the sandbox, and `-m`/`-f` would
 * read a file in that folder, where the sandbox keeps credential stores unreadable. No background tool can create
 * such a name. xargs still needs `--` first: its input is split at blanks, so one listed name can make several words.
 */
export const FILE: OptionSpec = {
  risky: false,
  shortArg: "eFfmP",
  shortFlags: "bcdEhiIklLNnprsSv0",
  badShort: {
    C: "compiles a magic file and writes the result (--compile)",
    z: "runs decompression programs on compressed files (--uncompress)",
    Z: "runs decompression programs on compressed files (--uncompress-noreport)"
  },
  badLong: {
    compile: "compiles a magic file and writes the result",
    uncompress: "runs decompression programs on compressed files",
    "uncompress-noreport": "runs decompression programs on compressed files"
  },
  long: { exclude: "required", "exclude-quiet": "required", separator: "required", "files-from": "required", "magic-file": "required", parameter: "required" }
}

export const checkDate = (cmd: string, parsed: ParsedArgs): string | undefined => {
  for (const w of parsed.operands) {
    if (!w.value.startsWith("+") || w.glob) {
      return `\`${cmd}\`: operand ${show(w)} would set the system clock; only a +FORMAT operand is allowed`
    }
  }
  if (parsed.operands.length > 1) return `\`${cmd}\` takes at most one +FORMAT operand`
  return undefined
}

export const CD: OptionSpec = { strict: true, shortFlags: "LPe@" }

export const checkCd = (cmd: string, parsed: ParsedArgs): string | undefined => {
  if (parsed.operands.length > 1) return `\`${cmd}\` takes one directory`
  const g = parsed.operands.find((w) => w.glob)
  return g === undefined ? undefined : `\`${cmd}\`: ${show(g)} is a wildcard; name the directory`
}
