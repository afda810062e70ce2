/**
 * Staleness by content, the pure half for names that are not paths: which symbols of the project a memory cites
 * (checked by layers/recall/citedSymbols.ts against the project's files) and which npm scripts it runs (checked
 * against package.json's `scripts`). Both come only from inline code (single backticks, one line) and are chosen
 * conservatively, since a wrong "no longer appears" is worse than silence:
 * - a symbol is a whole span that is one identifier (`parseConfig`, `parseConfig()`), RECALL_SYMBOL_MIN_CHARS to
 *   RECALL_SYMBOL_MAX_CHARS long, made of ASCII letters, digits and `_`, shaped like code: a lower-case letter or
 *   digit followed by a capital (camelCase, PascalCase with two humps) or a `_` between two letters or digits
 *   (snake_case, SCREAMING_SNAKE). A plain word (`Effect`, `config`, `README`) never is; nor is a well-known name
 *   that is not the project's own (`TypeScript`, `node_modules`, `NODE_ENV`, the names of naming styles).
 * - a script is the name in `npm run NAME` / `npm run-script NAME` (any of npm, pnpm, yarn, bun), `npm test` (not
 *   bun's, which is bun's own runner), or `pnpm NAME` / `yarn NAME` / `bun NAME` when NAME has a `:` (no built-in
 *   command has one). Only a command that runs in the project root: a span with `cd`, or a command with an option
 *   before the script or after it other than `--` (a workspace, a prefix, `--if-present`) gives none.
 */
import { RECALL_SYMBOL_MAX_CHARS, RECALL_SYMBOL_MIN_CHARS } from "../limits.ts"

/** Inline code spans: single backticks on one line (a fence's ``` never opens one); the same as citedPaths.ts. */
const SPAN = /(?<!`)`([^`\n]+)`(?!`)/g
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const CODE_SHAPE = /[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]/

/** Names shaped like code that are not any project's own: checking them would say "gone" of what never was. */
const NOT_THE_PROJECTS = new Set([
  "camelCase", "PascalCase", "snake_case", "SCREAMING_SNAKE_CASE", "UPPER_SNAKE_CASE", "node_modules", "NODE_ENV",
  "NODE_OPTIONS", "NODE_PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "JavaScript", "TypeScript", "CoffeeScript", "GitHub",
  "GitLab", "BitBucket", "PostgreSQL", "MongoDB", "MariaDB", "DynamoDB", "CockroachDB", "ClickHouse", "GraphQL",
  "WebSocket", "WebSockets", "WebAssembly", "NodeJS", "OpenAI", "YouTube", "LinkedIn", "WordPress", "PayPal", "DevOps",
  "FastAPI", "PyTorch", "TensorFlow", "JetBrains", "IntelliJ", "PhpStorm", "PyCharm", "WebStorm", "VSCode", "iPhone",
  "MacBook", "DigitalOcean", "CloudFlare", "CloudFront", "LastPass", "OneDrive", "SharePoint", "PowerShell",
  "OpenSSL", "OpenSSH", "FreeBSD", "OpenBSD", "NetBSD", "SQLite", "MySQL", "RabbitMQ", "ElasticSearch", "OpenSearch",
  "JUnit", "PHPUnit", "HashiCorp", "OpenTofu", "OpenTelemetry"
])

const spans = (text: string): ReadonlyArray<string> => [...text.matchAll(SPAN)].map((m) => m[1]!.trim())

/** The symbol a whole span names, or undefined. */
export const symbolOf = (span: string): string | undefined => {
  const name = span.endsWith("()") ? span.slice(0, -2) : span
  if (name.length < RECALL_SYMBOL_MIN_CHARS || name.length > RECALL_SYMBOL_MAX_CHARS) return undefined
  if (!IDENTIFIER.test(name) || !CODE_SHAPE.test(name) || NOT_THE_PROJECTS.has(name)) return undefined
  return name
}

/** The first `max` distinct symbols `text` cites in inline code, in order. */
export const citedSymbols = (text: string, max: number): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const span of spans(text)) {
    if (found.length >= max) break
    const s = symbolOf(span)
    if (s !== undefined && !found.includes(s)) found.push(s)
  }
  return found
}

const TOOLS = new Set(["npm", "pnpm", "yarn", "bun"])
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/

/** The script one command (no `&&`, `;` or `|` in it) runs from the project root, or undefined. */
const scriptOfCommand = (command: string): string | undefined => {
  const words = command.trim().split(/\s+/)
  const [tool, verb] = words
  if (tool === undefined || verb === undefined || !TOOLS.has(tool)) return undefined
  let name: string | undefined
  let rest: ReadonlyArray<string>
  if (verb === "run" || verb === "run-script") {
    name = words[2]
    rest = words.slice(3)
  } else if (verb === "test" && tool !== "bun") {
    name = "test"
    rest = words.slice(2)
  } else if (verb.includes(":") && tool !== "npm") {
    name = verb
    rest = words.slice(2)
  } else return undefined
  if (name === undefined || name.length > RECALL_SYMBOL_MAX_CHARS || !SCRIPT_NAME.test(name)) return undefined
  // What follows the name goes to the script only after `--`; anything else may change where or whether it runs.
  if (rest.length > 0 && rest[0] !== "--") return undefined
  return name
}

/** The first `max` distinct npm scripts `text` runs in inline code, in order. */
export const citedScripts = (text: string, max: number): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const span of spans(text)) {
    const commands = span.split(/&&|\|\||[;|]/)
    // A command run elsewhere (`cd web && npm run build`) names another package's script.
    if (commands.some((c) => /^cd(\s|$)/.test(c.trim()))) continue
    for (const command of commands) {
      if (found.length >= max) return found
      const s = scriptOfCommand(command)
      if (s !== undefined && !found.includes(s)) found.push(s)
    }
  }
  return found
}
