/** The link targets of MEMORY.md's lines, in order: what lint checks and what the writers match topics against. Pure. */
export const indexLinkTargets = (content: string): ReadonlyArray<string> =>
  [...content.matchAll(/\[[^\]\n]*\]\(([^)\s]*)[^)]*\)/g)].map((m) => m[1] ?? "").filter((t) => t !== "")
