/** Every spec constant in one place. These numbers are behaviour: tests pin each at, below and above its edge. */

/** MEMORY.md injected into the system prompt. */
export const INDEX_MAX_LINES = 200
export const INDEX_MAX_UNITS = 25_000
/** Backfilled index: 80% of the window. */
export const BACKFILL_MAX_LINES = 160
export const BACKFILL_MAX_UNITS = 20_000
export const INDEX_TRUNCATION_WARNING = "WARNING: MEMORY.md was truncated"

/**
 * Topic scan. Every topic is scanned and reachable; the reference's 200 decides only what is shown: `pm scan`'s
 * topics and the most candidates the selector is shown for one request.
 */
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
/**
 * Ours: the folder's manifest, kept per process and refreshed from what changed. Each refresh also checks this many
 * unchanged topic files by a stat (in turn), so an edit in place, which leaves the folder's time alone, is seen.
 */
export const SCAN_RECHECK_PER_REFRESH = 64
/**
 * Ours: a folder or file whose time is this close to the moment it was read may change again within the file
 * system's clock tick without its time moving, so it is read again at the next refresh instead of trusted.
 */
export const SCAN_RACY_MS = 2_000
/**
 * Ours: the largest kept manifest (every topic's header and ranked words, in the memory root's state folder) written
 * or read; a larger one is not written, and a file above it is ignored (the topics are read instead).
 */
export const MANIFEST_CACHE_MAX_BYTES = 32 * 1024 * 1024

/** Ranking (ours): what of a topic's body is indexed (bytes from the file's start), and how many prompt words count. */
export const RANK_BODY_MAX_BYTES = 8_192
export const RANK_QUERY_MAX_TERMS = 32
/** Ours: the best-ranked topics of a request are stat-ed before they are shown, so the likeliest picks are current. */
export const RANK_RECHECK_TOP = 16
/**
 * Ours: the most existing memories the extractor's task lists (those nearest to the conversation, then the newest).
 * The fork's system prompt already holds the index of every memory, and the task says how many are left out and to
 * search before creating a file; a longer list would be sent, uncached, on every extraction.
 */
export const EXTRACT_CATALOG_MAX_TOPICS = 10
/**
 * A background read of the index the model already holds (a fork's system prompt) with lines added since is answered
 * with the added lines alone while they are at most this share of the file's lines; past it, with the whole file.
 */
export const HELD_INDEX_MAX_ADDED_SHARE = 0.25
/** Ours: how much of the conversation's text (its end) the extractor's catalog is ranked against. */
export const RANK_CONVERSATION_MAX_CHARS = 16_384
/**
 * Ours: the dream's catalog holds, besides the newest topics, the DREAM_NEIGHBOURS_EACH topics nearest to each of the
 * DREAM_NEIGHBOUR_SEEDS newest (what it would merge), within the selector's catalog budget.
 */
export const DREAM_NEIGHBOUR_SEEDS = 20
export const DREAM_NEIGHBOURS_EACH = 3

/** One topic recalled into context. */
export const RECALL_MAX_LINES = 200
export const RECALL_MAX_BYTES = 4_096
/** Recall per branch, counted over sanitized topic text and truncation notes. */
export const BRANCH_RECALL_BUDGET = 61_440

/** Selector. */
export const SELECTOR_MAX_FILES = 5
/**
 * Ours: a memory too large to be shown whole shows the selector its SELECTOR_NEWEST_MAX_TOPICS newest topics and,
 * beside them, the others near the request (a ranking score, BM25 over src/memory/topicRanking.ts, of at least
 * RECALL_NEAR_MIN_SCORE: a word the request shares with a topic that few other topics hold); with no topic near,
 * the selector is not asked. A word found in about half of the topics, once in a topic's body, scores below it.
 */
export const RECALL_NEAR_MIN_SCORE = 1
export const SELECTOR_NEWEST_MAX_TOPICS = 20
/**
 * Ours: the catalog the selector is shown for one request, at most this many characters (lines and their line
 * breaks), with each description cut to CATALOG_DESCRIPTION_MAX_CHARS (the lint's own limit for a description).
 */
export const SELECTOR_CATALOG_MAX_CHARS = 40_000
/**
 * Ours: a selector conversation that was given a memory's whole list keeps that first message byte for byte (its
 * prefix stays cached) and says what changed since in the new request's message, while the changes are at most this
 * share of the list's characters and both fit SELECTOR_CATALOG_MAX_CHARS; past that, the list is given anew.
 */
export const SELECTOR_CHANGES_MAX_SHARE = 0.5
/** Ours: the selector conversations (one per session branch) whose first message a process remembers, oldest dropped. */
export const SELECTOR_SENT_MAX_SESSIONS = 16
export const CATALOG_DESCRIPTION_MAX_CHARS = 300
export const SELECTOR_MAX_TOKENS = 512
export const SELECTOR_WAIT_MS = 2_000

/** Staleness: a reminder when floor(age / day) > 1, so from 48 hours on. */
export const DAY_MS = 86_400_000
/**
 * Ours: staleness by content. A recalled memory's cited project files (paths in its inline code) are checked, at most
 * this many per memory (the first ones cited), by a stat each: gone, or changed after the memory was.
 */
export const RECALL_CITED_PATHS_MAX = 5
/** Ours: a cited path longer than this many characters is not a path worth a stat (and is never checked). */
export const RECALL_CITED_PATH_MAX_CHARS = 256
/**
 * Ours: staleness by content, symbols and scripts (src/recall/citedSymbols.ts). A recalled memory's cited symbols
 * (`parseConfig`, `QUEUE_JOB_MAX_BYTES`) are looked for in the project's files, at most RECALL_CITED_SYMBOLS_MAX per
 * memory and RECALL_SYMBOL_CHECKS_MAX per recall (the first ones, in selection order), one `git grep -q` each, all at
 * once, each stopped at RECALL_SYMBOL_CHECK_MS (a stopped one says nothing). A symbol is RECALL_SYMBOL_MIN_CHARS to
 * RECALL_SYMBOL_MAX_CHARS characters long.
 */
export const RECALL_CITED_SYMBOLS_MAX = 5
export const RECALL_SYMBOL_CHECKS_MAX = 8
export const RECALL_SYMBOL_CHECK_MS = 1_500
export const RECALL_SYMBOL_MIN_CHARS = 6
export const RECALL_SYMBOL_MAX_CHARS = 80
/** Ours: at most this many npm scripts a memory runs (`npm run build`) are looked for in package.json's `scripts`. */
export const RECALL_CITED_SCRIPTS_MAX = 5
/** Ours: a package.json larger than this is not read for its scripts (nothing is said about them). */
export const RECALL_PACKAGE_JSON_MAX_BYTES = 1_048_576

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
  // The memory history's git folder (history.git): one commit, or the local part of one sync, at a time.
  "history.lock": 5 * 60_000,
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
 * Ours: the largest memory file a command rewrites (forget and remember on MEMORY.md). Such a command holds the file
 * about five times in memory (what it read, what it writes, the bytes the writer checks before and after its rename,
 * the journal's copy), so a larger file is refused with a reason before anything changes, never cut.
 */
export const MEMORY_REWRITE_MAX_BYTES = 64 * 1024 * 1024

/**
 * Ours, not the spec's: the most one queued extraction (memory-roots/<hash>/queue/, src/background/queue.ts) may
 * hold, its file as written. A session's messages past it are left out oldest first (the job says how many); a
 * job whose newest message alone is larger is not queued, and the session says so.
 */
export const QUEUE_JOB_MAX_BYTES = 8 * 1024 * 1024

/**
 * Ours: how many drains may end a queued extraction on its model's error (a provider refusing, failing or out of
 * reach) before it is given up as a session's own run gives it up. Below it the job stays queued for the next drain.
 */
export const QUEUE_JOB_MAX_ATTEMPTS = 3

/**
 * Ours: the longest a background worker (`pm extract --worker`, started by a print-mode session at its end) runs.
 * It starts no further pass of the queue once this much time has gone by since it started, and it exits at this
 * bound even in the middle of a job: that job's changes are rolled back by the next holder of extract.lock
 * (whole or absent) and the job stays queued.
 */
export const QUEUE_WORKER_MAX_MS = 30 * 60_000

/**
 * Ours: the size of the background worker's log (memory-roots/<hash>/queue-worker.log) past which a new worker
 * starts it afresh instead of adding to it; below or at it, each worker's lines are added to the end.
 */
export const QUEUE_WORKER_LOG_MAX_BYTES = 256 * 1024

/**
 * Ours: how many consecutive words (the shell's operators count as words) of a background write, found in a tool
 * result and in no user message, make it copied from outside text (src/writes/provenance.ts): such a write is held
 * for the person's review. Below it, shared phrases are common wording.
 */
export const PROVENANCE_SPAN_TOKENS = 6

/**
 * Ours: how many of a `user` or `feedback` memory's distinctive words (src/writes/provenance.ts) the user must have
 * said or confirmed for a background write of it to be saved; with fewer it is held for review. A memory with fewer
 * distinctive words needs all of them, and a user who said fewer than this many needs all of theirs (never none).
 */
export const USER_SUPPORT_MIN_WORDS = 2

/**
 * Ours: how many background writes may wait for the person's review at once (memory-roots/<hash>/held/). A write
 * that would be held beyond it is refused with the reason instead, so outside text cannot fill the disk.
 */
export const HELD_MAX_ITEMS = 20

/**
 * Ours: the longest one local git command of the memory history (add, commit, read a tree) may run before it is
 * stopped; a commit stopped this way leaves the change in the folder, committed by the next commit.
 */
export const HISTORY_GIT_TIMEOUT_MS = 30_000

/** Ours: the most output one git command of the history may give (stdout and stderr each); past it, it is stopped. */
export const HISTORY_GIT_MAX_OUTPUT_BYTES = 32 * 1024 * 1024

/** Ours: the longest one fetch or push of `pm sync` (the user's own git, over the network) may run. */
export const SYNC_NETWORK_TIMEOUT_MS = 120_000

/**
 * Ours: how long a session's first recall waits for the pull that starts with the session; past it, recall goes on
 * with the memory on this machine and the pull lands when it is done.
 */
export const SYNC_PULL_WAIT_MS = 3_000

/** Ours: how many times a push that the remote refused (it moved meanwhile) is retried after a pull. */
export const SYNC_PUSH_RETRIES = 3
