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
  "config.lock": 60_000
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
 * Ours: the largest memory file a command rewrites (forget and remember on MEMORY.md). Such a command holds the file
 * about five times in memory (what it read, what it writes, the bytes the writer checks before and after its rename,
 * the journal's copy), so a larger file is refused with a reason before anything changes, never cut.
 */
export const MEMORY_REWRITE_MAX_BYTES = 64 * 1024 * 1024
