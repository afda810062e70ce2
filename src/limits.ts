/** Every spec constant in one place. These numbers are behaviour: tests pin each at, below and above its edge. */

/** MEMORY.md injected into the system prompt. */
export const INDEX_MAX_LINES = 200
export const INDEX_MAX_UNITS = 25_000
/** Backfilled index: 80% of the window. */
export const BACKFILL_MAX_LINES = 160
export const BACKFILL_MAX_UNITS = 20_000
export const INDEX_TRUNCATION_WARNING = "WARNING: MEMORY.md was truncated"

/** Topic scan. */
export const SCAN_MAX_TOPICS = 200
export const SCAN_CONCURRENCY = 16
export const FRONTMATTER_MAX_LINES = 30
export const FRONTMATTER_MAX_BYTES = 65_536
/**
 * Ours, not the spec's: bounds on the walk, so a memory directory that is (or links to) a huge tree cannot turn a
 * scan into a crawl. Topics live at most a few folders deep.
 */
export const SCAN_MAX_DEPTH = 16
export const SCAN_MAX_DIRECTORIES = 1_000
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", ".hg", ".svn", ".bzr", ".jj", ".sl"])

/** One topic recalled into context. */
export const RECALL_MAX_LINES = 200
export const RECALL_MAX_BYTES = 4_096
/** Recall per branch, counted over sanitized topic text and truncation notes. */
export const BRANCH_RECALL_BUDGET = 61_440

/** Selector. */
export const SELECTOR_MAX_FILES = 5
export const SELECTOR_MAX_TOKENS = 512
export const SELECTOR_WAIT_MS = 2_000

/** Staleness: a reminder when floor(age / day) > 1, so from 48 hours on. */
export const DAY_MS = 86_400_000

/** Lint. */
export const DESCRIPTION_MAX_CHARS = 300
export const INDEX_LINE_MAX_CHARS = 150

/** Project key. */
export const PROJECT_KEY_MAX = 200

/** Locks: name -> timeout in milliseconds. */
export const LOCK_TIMEOUTS_MS = {
  "extract.lock": 15 * 60_000,
  "dream.lock": 60 * 60_000,
  "last-dream-at.lock": 60_000,
  // Appends to and prunes of the change journal: short critical sections.
  "journal.lock": 60_000,
  // A change of config.json (one key read, set and published): a short critical section under the storage root.
  "config.lock": 60_000,
  // Held by whoever runs the queued extractions (a session's drain, `pm extract`), for the whole drain.
  "queue.lock": 15 * 60_000
} as const
export type LockName = keyof typeof LOCK_TIMEOUTS_MS
/**
 * An empty or unparseable lock file older than this is stale: its writer crashed between creating and filling it, or
 * the disk was full. A live writer fills it within microseconds.
 */
export const LOCK_UNREADABLE_GRACE_MS = 5_000
/** A lock's mtime this far ahead of our clock is set back to now by the first process that sees it. */
export const LOCK_FUTURE_TOLERANCE_MS = 2_000

/** Background read window (Pi's native read). */
export const BACKGROUND_READ_MAX_LINES = 2_000
export const BACKGROUND_READ_MAX_BYTES = 51_200

/**
 * Ours, not the spec's: the most one queued extraction (memory-roots/<hash>/queue/, src/background/queue.ts) may
 * hold, its file as written. A session's messages past it are left out oldest first (the job says how many); a
 * job whose newest message alone is larger is not queued, and the session says so.
 */
export const QUEUE_JOB_MAX_BYTES = 8 * 1024 * 1024
