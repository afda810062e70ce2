/**
 * The recall eval set: memory folders of any size generated from a seed (the same seed and size give the same
 * files, byte for byte), with prompts and the topics each should bring back. Topics are the four memory types written
 * as a project's memory would hold them: a component and a tool of a made-up product, one of a few dozen kinds of
 * lesson, and specifics of their own (a variable, a number, a person). Prompts come in three kinds: `direct` (words
 * of the topic's own), `paraphrase` (other words for the same thing: an alias of the component, a synonym for the
 * lesson) and `old` (direct, about a topic older than the newest 200). Used by bench/recallEval.ts and the tests.
 */
import { mkdir, writeFile, utimes } from "node:fs/promises"
import { join } from "node:path"

export interface EvalTopic {
  readonly filename: string
  readonly content: string
  readonly mtimeMs: number
}

export interface EvalPrompt {
  readonly text: string
  readonly gold: ReadonlyArray<string>
  readonly kind: "direct" | "paraphrase" | "old"
}

export interface EvalMemory {
  readonly topics: ReadonlyArray<EvalTopic>
  readonly prompts: ReadonlyArray<EvalPrompt>
}

/** mulberry32: a small seeded generator, enough for fixtures. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** [name, alias]: how the topic names the component, and how a person might call it instead. */
const COMPONENTS: ReadonlyArray<readonly [string, string]> = [
  ["billing service", "invoicing backend"], ["auth gateway", "login proxy"], ["search indexer", "full-text crawler"],
  ["mobile app", "phone client"], ["admin dashboard", "back-office console"], ["payment webhooks", "card processor callbacks"],
  ["image resizer", "thumbnail pipeline"], ["notification worker", "push sender"], ["report exporter", "CSV download job"],
  ["feature flags", "rollout toggles"], ["rate limiter", "request throttle"], ["session store", "cookie cache"],
  ["GraphQL schema", "API types"], ["warehouse sync", "analytics loader"], ["email templates", "mail layouts"],
  ["CLI installer", "setup script"], ["docs site", "handbook pages"], ["load balancer", "traffic router"],
  ["infra modules", "cloud provisioning"], ["event consumers", "queue readers"], ["search ranking", "result ordering"],
  ["checkout flow", "purchase funnel"], ["user profiles", "account pages"], ["audit log", "change history"],
  ["geocoder", "address lookup"], ["PDF renderer", "document printer"], ["chat widget", "support bubble"],
  ["scheduler", "cron runner"], ["tenant migrations", "schema upgrades"], ["pricing engine", "quote calculator"],
  ["recommendation model", "suggestion service"], ["upload service", "file intake"], ["video transcoder", "media encoder"],
  ["translation files", "locale strings"], ["SSO connector", "enterprise sign-in"], ["metrics exporter", "telemetry shipper"],
  ["backup job", "snapshot task"], ["design system", "UI kit"], ["map tiles", "cartography layer"], ["inventory sync", "stock updater"]
]

const TOOLS = [
  "pnpm", "Docker", "Kubernetes", "Postgres", "Redis", "Terraform", "GitHub Actions", "Playwright", "Vitest", "ESLint",
  "Sentry", "Datadog", "Vite", "gRPC", "S3", "Stripe", "OpenTelemetry", "Helm", "Bazel", "Gradle", "pytest", "Kafka",
  "Elasticsearch", "Nginx", "Prisma", "Celery", "Grafana", "Cypress", "Webpack", "RabbitMQ"
]

const PEOPLE = ["Ana", "Bo", "Chidi", "Dana", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemi", "Luca", "Mei", "Nils", "Oren", "Priya"]
const VARS = ["TIMEOUT_MS", "MAX_RETRIES", "API_BASE_URL", "BATCH_SIZE", "POOL_SIZE", "CACHE_TTL", "REGION", "LOG_LEVEL", "QUEUE_NAME", "SIGNING_KEY_ID"]

interface Kind {
  readonly type: "user" | "feedback" | "project" | "reference"
  /** Words for the file name. */
  readonly slug: string
  /** The heading the body opens with. */
  readonly name: (c: string, tool: string) => string
  readonly description: (c: string, tool: string, s: Specifics) => string
  readonly body: (c: string, tool: string, s: Specifics) => string
  /** A question with the topic's own words, and one with none of the lesson's words. */
  readonly direct: (c: string, tool: string) => string
  readonly paraphrase: (alias: string, tool: string) => string
}

interface Specifics {
  readonly person: string
  readonly variable: string
  readonly number: number
}

const KINDS: ReadonlyArray<Kind> = [
  {
    type: "project", slug: "flaky-test", name: (c) => `Flaky ${c} test`,
    description: (c, tool, s) => `The ${c} integration test under ${tool} fails at random when ${s.variable} is below ${s.number}`,
    body: (c, tool, s) => `Seen on CI about once a week. Rerun before digging in; ${s.person} traced it to a race in the ${c} fixtures.\n**Why:** the ${tool} container starts slowly.\n**How to apply:** raise ${s.variable} locally when reproducing.`,
    direct: (c) => `the ${c} test is flaky again on CI, what do we know`,
    paraphrase: (a) => `why does the ${a} check keep breaking intermittently in the pipeline`
  },
  {
    type: "feedback", slug: "no-mocks", name: (c, tool) => `Real ${tool} in ${c} tests`,
    description: (c, tool) => `Do not mock ${tool} in ${c} tests; use the local container instead`,
    body: (c, tool, s) => `${s.person} rejected a PR that stubbed ${tool}: the mocks hid a schema drift last quarter.\n**Why:** mocked tests passed while production broke.\n**How to apply:** start ${tool} with the compose file before running ${c} tests.`,
    direct: (c, tool) => `should I mock ${tool} when writing ${c} tests`,
    paraphrase: (a, tool) => `can I fake out ${tool} in the specs for the ${a}`
  },
  {
    type: "project", slug: "release-freeze", name: (c) => `${c} release freeze`,
    description: (c, _tool, s) => `No ${c} deploys during the freeze that ends on day ${s.number} of the quarter`,
    body: (c, _tool, s) => `Announced by ${s.person}. Only hotfixes with a second reviewer may ship to the ${c}.\n**Why:** the partner audit runs over the whole freeze.\n**How to apply:** park feature branches; tag hotfixes with freeze-exception.`,
    direct: (c) => `can I deploy the ${c} this week or is there a release freeze`,
    paraphrase: (a) => `is shipping changes to the ${a} blocked right now`
  },
  {
    type: "reference", slug: "dashboard", name: (c, tool) => `${c} ${tool} dashboard`,
    description: (c, tool) => `Where the ${c} ${tool} dashboard lives and which panels matter`,
    body: (c, tool, s) => `Dashboard: https://${tool.toLowerCase().replace(/\s+/g, "")}.internal.example/d/${s.number}. The error-rate and p99 panels are the ones on-call watches for the ${c}.`,
    direct: (c, tool) => `where is the ${tool} dashboard for the ${c}`,
    paraphrase: (a) => `which graphs should I look at to see if the ${a} is healthy`
  },
  {
    type: "project", slug: "env-var", name: (c, _tool) => `${c} configuration variable`,
    description: (c, _tool, s) => `The ${c} reads ${s.variable} at startup; it must be set in every environment`,
    body: (c, tool, s) => `Missing ${s.variable} makes the ${c} crash-loop under ${tool} with an unhelpful error. Default in staging is ${s.number}.\n**Why:** the fallback was removed in the config rewrite.\n**How to apply:** add it to the deploy manifest when adding an environment.`,
    direct: (c, _tool) => `the ${c} crashes at startup complaining about configuration`,
    paraphrase: (a) => `the ${a} keeps restarting right after it boots`
  },
  {
    type: "feedback", slug: "small-prs", name: (c) => `Small PRs for ${c}`,
    description: (c) => `Split ${c} changes into small pull requests, one concern each`,
    body: (c, _tool, s) => `${s.person} asked for reviews under ${s.number * 10} lines on the ${c}.\n**Why:** large diffs there caused two incidents.\n**How to apply:** land refactors separately from behaviour changes.`,
    direct: (c) => `how big should a pull request for the ${c} be`,
    paraphrase: (a) => `is it fine to bundle a refactor and a fix together for the ${a}`
  },
  {
    type: "project", slug: "migration", name: (c, tool) => `${c} move to ${tool}`,
    description: (c, tool, s) => `The ${c} is migrating to ${tool}; about ${s.number}% done, old path still serves traffic`,
    body: (c, tool, s) => `${s.person} owns the migration of the ${c} to ${tool}. Both paths run side by side behind a flag.\n**Why:** the old stack is out of support next year.\n**How to apply:** new code goes on ${tool} only.`,
    direct: (c, tool) => `what is the status of the ${c} migration to ${tool}`,
    paraphrase: (a) => `are we still halfway through replacing the stack under the ${a}`
  },
  {
    type: "reference", slug: "runbook", name: (c) => `${c} outage runbook`,
    description: (c) => `Steps to follow when the ${c} is down, and who to page`,
    body: (c, tool, s) => `1. Check ${tool} health. 2. Fail over to the standby region. 3. Page ${s.person} if not back in ${s.number} minutes.`,
    direct: (c) => `the ${c} is down, is there a runbook for the outage`,
    paraphrase: (a) => `the ${a} stopped responding, what are the emergency steps`
  },
  {
    type: "user", slug: "owner-prefs", name: (c) => `Preferences of the ${c} owner`,
    description: (c, _tool, s) => `${s.person} owns the ${c} and prefers terse commit messages and early drafts`,
    body: (c, _tool, s) => `${s.person} reviews most ${c} work. Likes a draft PR on day one, dislikes emoji in commits.`,
    direct: (c) => `who owns the ${c} and how do they like reviews`,
    paraphrase: (a) => `whom should I ask to look over work on the ${a}`
  },
  {
    type: "feedback", slug: "error-handling", name: (c) => `${c} error handling`,
    description: (c, tool) => `Errors from ${tool} in the ${c} must be wrapped with context, never swallowed`,
    body: (c, tool, s) => `A silent catch in the ${c} hid a ${tool} outage for ${s.number} hours.\n**Why:** nobody was alerted.\n**How to apply:** rethrow with the request id and log once at the edge.`,
    direct: (c, tool) => `how should the ${c} handle ${tool} errors`,
    paraphrase: (a, tool) => `is it ok to ignore exceptions coming from ${tool} in the ${a}`
  },
  {
    type: "project", slug: "perf-budget", name: (c) => `${c} latency budget`,
    description: (c, _tool, s) => `The ${c} must answer within ${s.number * 10} ms at p99; the alert fires above it`,
    body: (c, tool, s) => `Agreed with ${s.person}. Most of the time goes to ${tool} calls; cache them per request.`,
    direct: (c) => `what is the latency budget for the ${c}`,
    paraphrase: (a) => `how fast does the ${a} have to respond before someone gets paged`
  },
  {
    type: "reference", slug: "api-keys", name: (c, tool) => `${c} ${tool} credentials location`,
    description: (c, tool) => `The ${tool} credentials for the ${c} live in the vault under the team folder`,
    body: (c, tool, s) => `Path: team/${c.replace(/\s+/g, "-")}/${tool.toLowerCase().replace(/\s+/g, "-")}. Rotated every ${s.number} days by ${s.person}.`,
    direct: (c, tool) => `where are the ${tool} credentials for the ${c} stored`,
    paraphrase: (a, tool) => `I need the secret to talk to ${tool} from the ${a}`
  }
]

/** A header value as a model writes one: plain when YAML reads it as that text, quoted otherwise. */
const yamlValue = (text: string): string => (/^[-?:,[\]{}#&*!|>'"%@`\s]|: |\s#|:$/.test(text) ? JSON.stringify(text) : text)

const slugOf = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

/** The newest topic's time; each older one is a few hours before the next. */
const NEWEST_MS = Date.UTC(2026, 5, 1)

/** `size` topics and `prompts` prompts of each kind (fewer `old` ones when there are no old topics), from `seed`. */
export const generateMemory = (seed: number, size: number, prompts = 20): EvalMemory => {
  const next = random(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(next() * xs.length)]!
  const combos: Array<{ c: number; k: number; t: number }> = []
  const taken = new Set<string>()
  while (combos.length < size) {
    const combo = { c: Math.floor(next() * COMPONENTS.length), k: Math.floor(next() * KINDS.length), t: Math.floor(next() * TOOLS.length) }
    const key = `${combo.c}/${combo.k}/${combo.t}`
    if (taken.has(key)) continue
    taken.add(key)
    combos.push(combo)
  }
  const built = combos.map((combo, i) => {
    const [component, alias] = COMPONENTS[combo.c]!
    const kind = KINDS[combo.k]!
    const tool = TOOLS[combo.t]!
    const s: Specifics = { person: pick(PEOPLE), variable: pick(VARS), number: 2 + Math.floor(next() * 97) }
    const slug = slugOf(`${kind.slug} ${component} ${tool}`)
    const filename = `${slug}.md`
    const content = [
      "---",
      `name: ${slug}`,
      `description: ${yamlValue(kind.description(component, tool, s))}`,
      "metadata:",
      `  type: ${kind.type}`,
      "---",
      `# ${kind.name(component, tool)}`,
      "",
      kind.body(component, tool, s),
      ""
    ].join("\n")
    // Index 0 is the newest; the gaps vary so that times are not evenly spread.
    return { filename, content, mtimeMs: 0, combo, component, alias, kind, tool, order: i }
  })
  let at = NEWEST_MS
  for (const t of built) {
    t.mtimeMs = at
    at -= 3_600_000 * (1 + Math.floor(next() * 12))
  }
  const out: Array<EvalPrompt> = []
  const chosen = new Set<number>()
  const choose = (from: number, to: number): number | undefined => {
    if (to <= from) return undefined
    for (let tries = 0; tries < 100; tries++) {
      const i = from + Math.floor(next() * (to - from))
      if (!chosen.has(i)) {
        chosen.add(i)
        return i
      }
    }
    return undefined
  }
  for (let p = 0; p < prompts; p++) {
    const recent = choose(0, Math.min(size, 200))
    if (recent !== undefined) {
      const t = built[recent]!
      out.push({ text: t.kind.direct(t.component, t.tool), gold: [t.filename], kind: "direct" })
    }
    const para = choose(0, size)
    if (para !== undefined) {
      const t = built[para]!
      out.push({ text: t.kind.paraphrase(t.alias, t.tool), gold: [t.filename], kind: "paraphrase" })
    }
    const old = choose(200, size)
    if (old !== undefined) {
      const t = built[old]!
      out.push({ text: t.kind.direct(t.component, t.tool), gold: [t.filename], kind: "old" })
    }
  }
  return { topics: built.map(({ filename, content, mtimeMs }) => ({ filename, content, mtimeMs })), prompts: out }
}

/** Writes the topics into `dir` (made when missing), a few hundred files at a time, each with its time. */
export const writeMemory = async (dir: string, memory: EvalMemory): Promise<void> => {
  await mkdir(dir, { recursive: true })
  const batch = 256
  for (let i = 0; i < memory.topics.length; i += batch) {
    await Promise.all(memory.topics.slice(i, i + batch).map(async (t) => {
      const path = join(dir, t.filename)
      await writeFile(path, t.content)
      await utimes(path, t.mtimeMs / 1000, t.mtimeMs / 1000)
    }))
  }
}
