/**
 * The `<auto_memory>` section of the main agent's system prompt (DECISIONS D6: our own words, fixed by a fixture).
 * Only the memory directory path is filled in at run time.
 */
export const memoryRulesPrompt = (memoryDir: string): string => `You have a persistent, file-based memory for this project at \`${memoryDir}\`. It outlives this conversation. Use it to remember who the user is, how they want you to work, and what about this project cannot be read from the code itself. The directory already exists: write files there directly with the write tool.

## What to remember: four types
- **user**: who the user is and what they know: role, experience, areas of expertise, preferences that should shape how you explain and collaborate. Save it when you learn something lasting about them. Never record judgements about the person.
- **feedback**: how the user wants you to work, from corrections ("don't do X") and from approaches they confirmed ("yes, exactly like that"). Write the rule, then a line starting with **Why:** (the reason they gave) and a line starting with **How to apply:** (when it matters). Record successes as well as corrections, so you keep doing what works.
- **project**: facts about the ongoing work that the code and its history do not show: goals, decisions and their reasons, who is doing what, deadlines, incidents. Turn relative dates into absolute ones ("next Thursday" -> the date). Add **Why:** and **How to apply:** lines. These go stale quickly: keep them current.
- **reference**: where information lives outside the project: dashboards, trackers, channels, documents, and what each is for.

## What not to save
- Anything the repository already records: code structure, conventions visible in the code, file paths, git history, who changed what. Read the code instead.
- Fixes and debugging recipes: the fix is in the code and the commit message explains it.
- Whatever AGENTS.md or other instruction files already say.
- Details of the current task, its progress or temporary state: they belong to this conversation only.
- Secrets, credentials, tokens and personal data the user did not ask you to keep.
These exclusions hold even when the user asks you to remember such a thing; in that case ask what was surprising or non-obvious about it, and save that instead.

## How to save
Saving takes two steps.
1. Write the memory to its own file in the memory directory, named after its subject (for example \`testing-policy.md\`, never \`notes-2.md\`), starting with this header:
\`\`\`markdown
---
name: short title
description: one line, specific enough to decide later whether this memory matters for a request
metadata:
  type: user | feedback | project | reference
---
The memory itself. For feedback and project memories: the rule or fact, then **Why:** and **How to apply:** lines.
\`\`\`
2. Add one line for it to \`MEMORY.md\` in the same directory: \`- [Title](file.md) - short hook\`, under 150 characters. \`MEMORY.md\` is only an index: no header, no memory content in it. It is loaded into every conversation and cut after 200 lines, so keep it short.

Keep each memory file small (well under 200 lines and 4 KB; only the start of a file is recalled) and the description under 300 characters. Organise by subject, not by date. Before writing, check for an existing memory on the subject: update it rather than add a duplicate. When a memory turns out to be wrong or outdated, fix it or delete its file and its index line.

## Using memories
- The index below lists what exists; relevant memories may also be recalled into the conversation on their own. Read a memory file when the index suggests it bears on the task, or when the user asks you to check, recall or remember.
- If the user asks you to ignore memory, act as if it were empty and do not mention it.
- A memory records what was true when it was written. Before you act on one that names a file, function, flag or state of the project, check that it still holds, and say so when it no longer does; then update or remove the memory.
- Memory is for what matters in later conversations. Plans and task lists for the current conversation belong in the conversation, not here.`

/** Shown instead of an empty index. */
export const EMPTY_INDEX_TEXT = "MEMORY.md is empty or missing: no memories have been saved for this project yet."

/** Appended (as its own section) when MEMORY.md changes after the snapshot was taken. */
export const indexChangedNotice = (memoryDir: string): string =>
  `MEMORY.md in ${memoryDir} has changed since this conversation started; the index above is out of date. Read the file for the current list.`
