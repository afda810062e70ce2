/**
 * The shipped recall set's folders of several sizes: the ten written topics (recallSet.ts) alone, then with 40 and
 * with 190 more generated from written seeds, each a fact about one component of the same project (who reviews it,
 * how it deploys, why its tests flake, what its limit is), so that a prompt about one fact of a component has the
 * component's three other topics beside it as near misses. The same size gives the same files and prompts every time
 * (no randomness: choices follow the component's and the aspect's positions). Pure.
 */
import { CORE_PROMPTS, CORE_TOPICS, NO_MEMORY_PROMPTS, type SetTopic } from "./recallSet.ts"
import type { RecallCase } from "./scores.ts"

const COMPONENTS: ReadonlyArray<string> = [
  "room search", "invoice exporter", "calendar sync", "booking reminders", "floor plan editor", "guest check-in kiosk",
  "occupancy report", "SSO login", "audit trail", "price rules engine", "waitlist", "door badge bridge",
  "catering orders", "parking passes", "visitor badges", "mobile push service", "CSV importer", "analytics loader",
  "search indexer", "email templates", "receipt printer", "Slack bot", "recurring bookings", "holiday calendar",
  "tenant admin console", "desk map", "cleaning schedule", "meeting room displays", "API rate limiter", "webhook relay",
  "PDF confirmations", "translation files", "accessibility checker", "cost centre export", "capacity forecaster",
  "no-show tracker", "equipment loans", "video link generator", "survey mailer", "backup job", "session store",
  "image thumbnails", "geo lookup", "ledger sync", "referral codes", "status page", "help centre widget", "ops CLI"
]

const PEOPLE = ["Ana", "Bo", "Chidi", "Dana", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemi", "Luca", "Mei", "Nils", "Oren", "Priya"]
const DEPLOYS = ["`pnpm deploy:canary` then `pnpm deploy:promote`", "the `release-train` workflow", "`make ship` from the ops host", "a Helm upgrade of its chart", "the blue-green switch in the deploy dashboard"]
const FLAKES = [
  "they share one Redis database", "a fixture reads the wall clock", "two suites write the same temp folder",
  "the fake mail server binds a fixed port", "test order leaks a global cache"
]
const LIMITS: ReadonlyArray<readonly [number, string]> = [[60, "requests a minute per tenant"], [500, "rows per import"], [20, "concurrent jobs"], [5, "retries per event"], [200, "items per page"]]

export const ASPECTS = ["owner", "deploy", "tests", "limit"] as const
export type Aspect = (typeof ASPECTS)[number]

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

interface Grown {
  readonly topic: SetTopic
  readonly prompt: string
}

/** The topic of `component` (by position) about `aspect`, with the prompt that should bring it back. */
export const grownTopic = (c: number, aspect: Aspect): Grown => {
  const name = COMPONENTS[c]!
  const pick = <T>(list: ReadonlyArray<T>, salt: number): T => list[(c * 7 + salt) % list.length]!
  const owner = pick(PEOPLE, 1)
  const reviewer = pick(PEOPLE, 5)
  const filename = `${slug(name)}-${aspect}.md`
  const ageDays = (c * 13 + ASPECTS.indexOf(aspect) * 29) % 90 + 1
  switch (aspect) {
    case "owner":
      return {
        topic: { filename, type: "reference", ageDays, name: `Who owns the ${name}`, description: `${owner} owns the ${name}; ${reviewer} reviews its pull requests`, body: `Questions about the ${name} go to ${owner}. Pull requests that touch it need a review from ${reviewer}.` },
        prompt: `who should review my pull request to the ${name}?`
      }
    case "deploy": {
      const how = pick(DEPLOYS, 2)
      return {
        topic: { filename, type: "project", ageDays, name: `Deploying the ${name}`, description: `The ${name} deploys with ${how.replace(/`/g, "")}`, body: `The ${name} is deployed with ${how}, only on weekdays between 09:00 and 16:00 UTC.` },
        prompt: `how do I deploy the ${name}?`
      }
    }
    case "tests": {
      const why = pick(FLAKES, 3)
      return {
        topic: { filename, type: "feedback", ageDays, name: `The ${name} tests run one at a time`, description: `The ${name} tests flake in parallel because ${why}`, body: `Run the ${name} tests with \`--runInBand\`: they fail at random when run in parallel because ${why}.\n\nHow to apply: whenever those tests are run or added to CI.` },
        prompt: `the ${name} tests fail at random in CI, why?`
      }
    }
    case "limit": {
      const [n, unit] = pick(LIMITS, 4)
      return {
        topic: { filename, type: "project", ageDays, name: `The ${name} limit`, description: `The ${name} allows at most ${n} ${unit}; raising it needs ${owner}`, body: `The ${name} allows at most ${n} ${unit}. Raising the limit needs ${owner}'s sign-off, because the database behind it is shared.` },
        prompt: `can we raise the ${name}'s limit for a big customer?`
      }
    }
  }
}

/** Every generated topic in a fixed order: component by component, four aspects each (192 in all). */
const allGrown: ReadonlyArray<Grown> = COMPONENTS.flatMap((_, c) => ASPECTS.map((a) => grownTopic(c, a)))

export interface RecallFolder {
  /** The folder's name in reports: its number of topics. */
  readonly name: string
  readonly topics: ReadonlyArray<SetTopic>
  readonly prompts: ReadonlyArray<RecallCase>
}

/** How many generated topics each shipped folder adds to the ten written ones, and how many of them get a prompt. */
export const SHIPPED_SIZES: ReadonlyArray<{ readonly grown: number; readonly asked: number }> = [
  { grown: 0, asked: 0 },
  { grown: 40, asked: 6 },
  { grown: 190, asked: 12 }
]

/** A folder of the ten written topics and the first `grown` generated ones; `asked` of those get a prompt, spread out. */
export const recallFolder = (grown: number, asked: number): RecallFolder => {
  const extra = allGrown.slice(0, grown)
  const step = asked === 0 ? 1 : Math.max(1, Math.floor(extra.length / asked))
  const chosen = extra.filter((_, i) => i % step === step - 1).slice(0, asked)
  const topics = [...CORE_TOPICS, ...extra.map((g) => g.topic)]
  return {
    name: `${topics.length} topics`,
    topics,
    prompts: [...CORE_PROMPTS, ...chosen.map((g) => ({ prompt: g.prompt, expect: [g.topic.filename] })), ...NO_MEMORY_PROMPTS]
  }
}

/** The folders `pm eval recall` runs without `--set`: 10, 50 and 200 topics. */
export const shippedRecallFolders = (): ReadonlyArray<RecallFolder> => SHIPPED_SIZES.map((s) => recallFolder(s.grown, s.asked))
