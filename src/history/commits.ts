/**
 * The memory history's fixed parts, pure: where its git folder sits (beside the journal, under the memory root, never
 * inside the memory folder), what it leaves out of every commit, and what a task's commit message says.
 *
 * Only memory is committed: Markdown files of the memory folder. Temp files of a publish in progress (`.pm-*.tmp`),
 * dot-files and dot-folders, and anything that is not `*.md` stay out (the exclude file below). Our other files
 * (locks, state, the journal, open-task markers, the queue) live in the memory root, outside the work tree.
 */
import { join } from "node:path"

export const HISTORY_DIR = "history.git"
/** Present in the history's git folder while history is switched off for its project: commits stop, nothing is lost. */
export const PAUSED_FILE = "pm-paused"
/** The sync settings of a history (`pm sync init`), JSON in its git folder. */
export const SYNC_SETTINGS_FILE = "pm-sync.json"
/** What the last sync did, JSON in its git folder. */
export const SYNC_STATE_FILE = "pm-sync-state.json"
/** The local branch that holds the history. */
export const HISTORY_BRANCH = "memory"

export const historyDirOf = (memoryRootDir: string): string => join(memoryRootDir, HISTORY_DIR)

/** `info/exclude`: everything but Markdown files, and no dot-file or dot-folder at any depth. */
export const EXCLUDE_LINES = [
  "# Written by pi-project-memory: only memory files are committed.",
  "*",
  "!*/",
  "!*.md",
  ".*",
  ""
].join("\n")

export interface CommitSubject {
  readonly task: string
  readonly kind: string
  readonly session: string | null
  readonly model: string | null
  readonly undoes?: string | undefined
  readonly recovers?: string | undefined
}

const KIND_TEXT: Readonly<Record<string, string>> = {
  extract: "extraction saved what the session learned",
  dream: "dream consolidated memory",
  remember: "remembered a fact a person gave",
  forget: "forgot topics a person named",
  undo: "undid an earlier change",
  recover: "rolled back an interrupted change",
  sync: "merged memory from another machine",
  start: "the history starts with the memory as it was"
}

/** One file's change as git's `status --porcelain` names it: A added, M modified, D deleted. */
export interface ChangedFile {
  readonly file: string
  readonly change: "A" | "M" | "D"
}

const WORD: Readonly<Record<ChangedFile["change"], string>> = { A: "added", M: "changed", D: "deleted" }

/**
 * The message of one task's commit: a subject saying what kind of task changed which files, then a body with the
 * task, session and model, and one line per file. The `Task:` line is the journal's task id (`pm log`, `pm undo`).
 */
export const commitMessage = (subject: CommitSubject | undefined, files: ReadonlyArray<ChangedFile>): string => {
  const names = files.map((f) => f.file)
  const shown = names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`
  const what = subject === undefined ? "changes left from earlier tasks" : KIND_TEXT[subject.kind] ?? `${subject.kind} changed memory`
  const lines = [`${subject?.kind ?? "pending"}: ${what} (${shown})`, ""]
  if (subject !== undefined) {
    lines.push(`Task: ${subject.task}`)
    lines.push(`Kind: ${subject.kind}`)
    lines.push(`Session: ${subject.session ?? "none (a person's command)"}`)
    if (subject.model !== null) lines.push(`Model: ${subject.model}`)
    if (subject.undoes !== undefined) lines.push(`Undoes: ${subject.undoes}`)
    if (subject.recovers !== undefined) lines.push(`Recovers: ${subject.recovers}`)
    lines.push("")
  }
  for (const f of files) lines.push(`${WORD[f.change]} ${f.file}`)
  return `${lines.join("\n")}\n`
}

/** `git diff --cached --name-status -z --no-renames` output as changed files, sorted by name. */
export const parseNameStatus = (out: string): ReadonlyArray<ChangedFile> => {
  const parts = out.split("\0")
  const files: Array<ChangedFile> = []
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i]!
    const file = parts[i + 1]!
    if (status === "" || file === "") continue
    files.push({ file, change: status.startsWith("D") ? "D" : status.startsWith("A") ? "A" : "M" })
  }
  return files.sort((a, b) => a.file.localeCompare(b.file))
}
