/**
 * Staleness by content for names that are not paths, the pure half (src/recall/citedSymbols.ts): which inline code
 * is a symbol of the project (conservatively: a wrong "no longer appears" is worse than silence), which is an npm
 * script run from the project root, how many of each, and the note's words for them.
 */
import { describe, expect, it } from "vitest"
import { symbolsToCheck } from "../../layers/recall/citedSymbols.ts"
import { RECALL_CITED_SCRIPTS_MAX, RECALL_CITED_SYMBOLS_MAX, RECALL_SYMBOL_CHECKS_MAX, RECALL_SYMBOL_MAX_CHARS, RECALL_SYMBOL_MIN_CHARS } from "../../src/limits.ts"
import { citedNote } from "../../src/recall/citedPaths.ts"
import { citedScripts, citedSymbols } from "../../src/recall/citedSymbols.ts"

const symbols = (text: string, max = RECALL_CITED_SYMBOLS_MAX) => citedSymbols(text, max)
const scripts = (text: string, max = RECALL_CITED_SCRIPTS_MAX) => citedScripts(text, max)

describe("the symbols a memory cites", () => {
  it("takes a whole inline-code span shaped like code: camelCase, PascalCase, snake_case, SCREAMING_SNAKE, a call", () => {
    const text = "Use `parseConfig` (or `parseConfig()`), the `MemoryWriter`, `QUEUE_JOB_MAX_BYTES`, `read_topic` and `sha256Hex`."
    expect(symbols(text, 10)).toEqual(["parseConfig", "MemoryWriter", "QUEUE_JOB_MAX_BYTES", "read_topic", "sha256Hex"])
  })

  it("never takes a plain word, a path, an option, a command, a member expression, plain or fenced text, or a well-known name", () => {
    const text = [
      "`Effect`", "`config`", "`README`", "`Makefile`", "`src/parseConfig.ts`", "`--dryRun`", "`npm run buildAll`", "`MemoryStore.readForRecall`",
      "`$HOME_DIR`", "`parse-config`", "`__init__`", "`_private`", "`TypeScript`", "`GitHub`", "`node_modules`", "`NODE_ENV`", "`camelCase`",
      "`snake_case`", "`parseConfig x`", "plain parseConfig", "```\nparseConfig\n```", "`ĉiuTago`"
    ].join(" ")
    expect(symbols(text, 50)).toEqual([])
  })

  it(`a symbol is RECALL_SYMBOL_MIN_CHARS (${RECALL_SYMBOL_MIN_CHARS}) to RECALL_SYMBOL_MAX_CHARS (${RECALL_SYMBOL_MAX_CHARS}) long: below, at and above each`, () => {
    const of = (n: number) => `aB${"c".repeat(n - 2)}`
    expect(symbols(`\`${of(RECALL_SYMBOL_MIN_CHARS - 1)}\``)).toEqual([])
    for (const n of [RECALL_SYMBOL_MIN_CHARS, RECALL_SYMBOL_MIN_CHARS + 1, RECALL_SYMBOL_MAX_CHARS - 1, RECALL_SYMBOL_MAX_CHARS]) expect(symbols(`\`${of(n)}\``)).toEqual([of(n)])
    expect(symbols(`\`${of(RECALL_SYMBOL_MAX_CHARS + 1)}\``)).toEqual([])
    // The `()` of a call is not counted.
    expect(symbols(`\`${of(RECALL_SYMBOL_MIN_CHARS)}()\``)).toEqual([of(RECALL_SYMBOL_MIN_CHARS)])
  })

  it(`at most RECALL_CITED_SYMBOLS_MAX (${RECALL_CITED_SYMBOLS_MAX}) per memory, the first ones, each once`, () => {
    const cite = (n: number) => Array.from({ length: n }, (_, i) => `\`symbolNo${i}\``).join(" ")
    expect(symbols(cite(RECALL_CITED_SYMBOLS_MAX - 1))).toHaveLength(RECALL_CITED_SYMBOLS_MAX - 1)
    expect(symbols(cite(RECALL_CITED_SYMBOLS_MAX))).toHaveLength(RECALL_CITED_SYMBOLS_MAX)
    const above = symbols(cite(RECALL_CITED_SYMBOLS_MAX + 1))
    expect(above).toHaveLength(RECALL_CITED_SYMBOLS_MAX)
    expect(above.at(-1)).toBe(`symbolNo${RECALL_CITED_SYMBOLS_MAX - 1}`)
    expect(symbols("`parseConfig` `parseConfig` `loadConfig`", 2)).toEqual(["parseConfig", "loadConfig"])
  })

  it(`at most RECALL_SYMBOL_CHECKS_MAX (${RECALL_SYMBOL_CHECKS_MAX}) per recall, the first ones in selection order, each once`, () => {
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `symbolNo${from + i}`)
    expect(symbolsToCheck([names(0, RECALL_SYMBOL_CHECKS_MAX - 1)])).toHaveLength(RECALL_SYMBOL_CHECKS_MAX - 1)
    expect(symbolsToCheck([names(0, 3), names(3, RECALL_SYMBOL_CHECKS_MAX - 3)])).toEqual(names(0, RECALL_SYMBOL_CHECKS_MAX))
    const above = symbolsToCheck([names(0, 3), names(0, 3), names(3, RECALL_SYMBOL_CHECKS_MAX - 2)])
    expect(above).toEqual(names(0, RECALL_SYMBOL_CHECKS_MAX))
  })
})

describe("the npm scripts a memory runs", () => {
  it("takes `run NAME` of npm, pnpm, yarn and bun, `npm test`, a `tool a:b` shortcut, and each command of a chain", () => {
    const text = "Run `npm run build`, `pnpm run lint -- --fix`, `yarn run-script docs`, `bun run bench`, `npm test`, `pnpm test:e2e` and `npm run check && yarn types:check`."
    expect(scripts(text, 20)).toEqual(["build", "lint", "docs", "bench", "test", "test:e2e", "check", "types:check"])
  })

  it("never takes a command run elsewhere or changed by an option, a built-in, bun's own test runner, or npm's `a:b`", () => {
    const text = [
      "`cd web && npm run build`", "`npm --prefix web run build`", "`npm run build --workspace=web`", "`npm run lint --if-present`",
      "`pnpm -r build`", "`pnpm --filter web build`", "`yarn workspace web build`", "`npm install`", "`pnpm add effect`", "`yarn build`",
      "`bun test`", "`npm test:e2e`", "`npm run $SCRIPT`", "`npm run`", "`CI=1 npm test`", "`npx vitest run`", "plain npm run build"
    ].join(" ")
    expect(scripts(text, 50)).toEqual([])
  })

  it(`a script name is at most RECALL_SYMBOL_MAX_CHARS (${RECALL_SYMBOL_MAX_CHARS}) long: below, at and above`, () => {
    const of = (n: number) => "s".repeat(n)
    for (const n of [RECALL_SYMBOL_MAX_CHARS - 1, RECALL_SYMBOL_MAX_CHARS]) expect(scripts(`\`npm run ${of(n)}\``)).toEqual([of(n)])
    expect(scripts(`\`npm run ${of(RECALL_SYMBOL_MAX_CHARS + 1)}\``)).toEqual([])
  })

  it(`at most RECALL_CITED_SCRIPTS_MAX (${RECALL_CITED_SCRIPTS_MAX}) per memory, the first ones, each once`, () => {
    const cite = (n: number) => Array.from({ length: n }, (_, i) => `\`npm run s${i}\``).join(" ")
    expect(scripts(cite(RECALL_CITED_SCRIPTS_MAX - 1))).toHaveLength(RECALL_CITED_SCRIPTS_MAX - 1)
    expect(scripts(cite(RECALL_CITED_SCRIPTS_MAX))).toHaveLength(RECALL_CITED_SCRIPTS_MAX)
    const above = scripts(cite(RECALL_CITED_SCRIPTS_MAX + 1))
    expect(above).toHaveLength(RECALL_CITED_SCRIPTS_MAX)
    expect(above.at(-1)).toBe(`s${RECALL_CITED_SCRIPTS_MAX - 1}`)
    expect(scripts("`npm run a` `yarn run a` `npm run b`", 2)).toEqual(["a", "b"])
  })
})

describe("the note", () => {
  it("names the symbols no longer in the project and the scripts package.json no longer has, after the files", () => {
    expect(citedNote({ gone: [], changed: [], absent: [], scriptsGone: [] })).toBeUndefined()
    expect(citedNote({ gone: [], changed: [], absent: ["parseConfig"] })).toBe("`parseConfig` no longer appears in the project: check before relying on it.")
    expect(citedNote({ gone: [], changed: [], scriptsGone: ["deploy"] })).toBe("package.json no longer has the `deploy` script: check before relying on it.")
    expect(citedNote({ gone: ["src/x.ts"], changed: [], absent: ["parseConfig", "loadConfig"], scriptsGone: ["a", "b"] })).toBe(
      "`src/x.ts` no longer exists; `parseConfig` and `loadConfig` no longer appear in the project; package.json no longer has the `a` and `b` scripts: check before relying on it."
    )
  })
})
