/**
 * The recall half of the set `pm eval` ships: the memory of a made-up project (Larkspur, a room-booking service in a
 * TypeScript monorepo) in ten written topics, the prompts that should bring each back, and prompts that need no
 * memory. The larger folders (recallSetGrown.ts) add generated topics to these ten. Written for this product. Pure.
 */
import type { RecallCase } from "./scores.ts"

export type TopicType = "user" | "feedback" | "project" | "reference"

export interface SetTopic {
  readonly filename: string
  readonly type: TopicType
  readonly name: string
  readonly description: string
  readonly body: string
  /** How old the file is when the folder is written, in days. */
  readonly ageDays: number
}

/** A topic file as the product writes one: frontmatter, then the body. */
export const topicFileText = (t: SetTopic): string =>
  ["---", `name: ${JSON.stringify(t.name)}`, `description: ${JSON.stringify(t.description)}`, "metadata:", `  type: ${t.type}`, "---", t.body, ""].join("\n")

export const CORE_TOPICS: ReadonlyArray<SetTopic> = [
  {
    filename: "package-manager.md", type: "feedback", ageDays: 40,
    name: "Use pnpm, never npm",
    description: "Dependencies are installed and added with pnpm; npm breaks the workspace links",
    body: "Install and add dependencies with pnpm only (`pnpm install`, `pnpm --filter web add lodash`).\n\nWhy: `npm install` ignores the workspace protocol and rewrites package-lock.json, which broke the web build twice.\nHow to apply: whenever a dependency is installed, added or upgraded."
  },
  {
    filename: "release-process.md", type: "project", ageDays: 12,
    name: "Release process",
    description: "Releases are tagged from main on Tuesdays with a changeset; Ines approves",
    body: "Releases go out on Tuesdays. Run `pnpm changeset version` on main, open the release pull request, and after Ines approves it tag `vX.Y.Z` from main; the tag starts the deploy pipeline.\n\nWhy: support staffing is lightest later in the week."
  },
  {
    filename: "user-role.md", type: "user", ageDays: 60,
    name: "The user is a backend engineer new to React",
    description: "Years of Go and Postgres; first months with React and the web client",
    body: "The user has written Go services and Postgres schemas for years and is new to React and the web client.\n\nHow to apply: explain frontend code in backend terms (a hook's cleanup is like a deferred close), and skip explanations of SQL or HTTP basics."
  },
  {
    filename: "test-database.md", type: "project", ageDays: 25,
    name: "Integration tests need their own Postgres",
    description: "Integration tests use Postgres 16 on port 5433 from docker compose, never the dev database",
    body: "Integration tests connect to Postgres 16 on port 5433, started with `docker compose up db-test`. The dev database on 5432 must never be used by tests: they truncate tables.\n\nA \"connection refused\" in the integration suite almost always means db-test is not running."
  },
  {
    filename: "commit-style.md", type: "feedback", ageDays: 33,
    name: "Commit messages",
    description: "Conventional commits, subject under 60 characters, no emoji",
    body: "Write commit messages as conventional commits (`fix(api): ...`), with a subject under 60 characters and no emoji. Squash fix-up commits before asking for review.\n\nWhy: the changelog is generated from the subjects."
  },
  {
    filename: "timezone-slots.md", type: "project", ageDays: 8,
    name: "Booking times and daylight saving",
    description: "Times are stored in UTC; slot arithmetic uses Temporal, never Date, since the March DST bug",
    body: "Bookings are stored in UTC and shown in the room's own time zone. In March a booking made across the clock change showed an hour late because slot maths used `Date` arithmetic; it now uses `Temporal.ZonedDateTime`.\n\nHow to apply: any code that adds durations to a booking time or computes free slots uses Temporal in the room's zone."
  },
  {
    filename: "staging-dashboards.md", type: "reference", ageDays: 50,
    name: "Staging and its dashboards",
    description: "Where staging runs and where its error rates and logs are",
    body: "Staging is https://staging.larkspur.example. Error rates and latency are on the Grafana board \"larkspur-api\"; logs are in Loki under the label app=larkspur-api."
  },
  {
    filename: "api-errors.md", type: "feedback", ageDays: 19,
    name: "API errors are problem+json",
    description: "Handlers return RFC 9457 problem details, never raw strings or stack traces",
    body: "API handlers report errors as `application/problem+json` (RFC 9457) with a stable `type` URI, through `problem()` in api/src/errors.ts. Never throw raw strings and never return a stack trace.\n\nWhy: the mobile client shows `title` to people and branches on `type`."
  },
  {
    filename: "feature-flags.md", type: "project", ageDays: 15,
    name: "Feature flags",
    description: "Flags live in flags.yaml; a flag is removed two weeks after it reaches 100 %",
    body: "Feature flags are declared in flags.yaml and read through FlagService. A flag is deleted, with its dead branch, two weeks after it reaches 100 % of users; Dana keeps the list of flags due for removal."
  },
  {
    filename: "payment-webhooks.md", type: "project", ageDays: 5,
    name: "Payment webhooks must be idempotent",
    description: "Stripe retried webhooks and bookings were charged twice; handlers record event ids",
    body: "In November Stripe retried a webhook that timed out and customers were charged twice for one booking. The webhook handler now records each event id in the `processed_events` table and ignores an id it has seen.\n\nHow to apply: every payment webhook handler checks `processed_events` first, and its tests replay the same event twice."
  }
]

/** Prompts about the project that one or two of the ten topics answer. */
export const CORE_PROMPTS: ReadonlyArray<RecallCase> = [
  { prompt: "Install the dependencies so I can run the app locally", expect: ["package-manager.md"] },
  { prompt: "add date-fns to the web package", expect: ["package-manager.md"] },
  { prompt: "We need to ship version 2.4 this week, what are the steps?", expect: ["release-process.md"] },
  { prompt: "Can you explain how the cleanup function of this useEffect works?", expect: ["user-role.md"] },
  { prompt: "the integration tests all fail with connection refused", expect: ["test-database.md"] },
  { prompt: "write the commit message for these changes", expect: ["commit-style.md"] },
  { prompt: "a customer booked 9:00 but the booking shows 10:00 since the clocks changed", expect: ["timezone-slots.md"] },
  { prompt: "compute the next free slot 30 minutes after the last booking of the day", expect: ["timezone-slots.md"] },
  { prompt: "where can I see the API's error rate on staging?", expect: ["staging-dashboards.md"] },
  { prompt: "make the create-booking endpoint return a proper error when the room is already taken", expect: ["api-errors.md"] },
  { prompt: "the new checkout flag has been at 100% since the start of the month, can we clean it up?", expect: ["feature-flags.md"] },
  { prompt: "a customer was charged twice for one booking, look into the webhook handler", expect: ["payment-webhooks.md"] },
  { prompt: "add a test for the refund webhook and commit it", expect: ["payment-webhooks.md", "commit-style.md"] },
  { prompt: "cut the release and make sure the integration tests pass first", expect: ["release-process.md", "test-database.md"] }
]

/** Prompts no memory of the project bears on: recall should bring back nothing. */
export const NO_MEMORY_PROMPTS: ReadonlyArray<RecallCase> = [
  { prompt: "What does Array.prototype.flatMap return for an empty array?", expect: [] },
  { prompt: "Explain the difference between TCP and UDP in two sentences", expect: [] },
  { prompt: "Convert 72 degrees Fahrenheit to Celsius", expect: [] },
  { prompt: "Write a regular expression that matches a hex colour like #a1b2c3", expect: [] },
  { prompt: "What is the time complexity of binary search?", expect: [] },
  { prompt: "Fix the spelling in this sentence: teh quick brown fox", expect: [] }
]
