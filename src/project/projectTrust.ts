/**
 * Whether Pi will trust a project, worked out the way Pi 1.x decides it at start-up, from what it reads: the
 * project resources that need trust (`.pi/settings.json` and the like), the saved decision nearest to the folder
 * (`<agentDir>/trust.json`), and the `defaultProjectTrust` setting. Pure: the reading is the caller's.
 *
 * Memory follows Pi's verdict: in an untrusted project nothing is injected, nothing is recalled and memory files are
 * off limits to the agent. A command-line `--approve` / `--no-approve` or an extension's `project_trust` answer
 * override all of this for one run; `pm` cannot see those, Pi's `/memory status` can.
 */

/** Entries under `<cwd>/.pi/` that make Pi ask for trust (a bare `.pi/` does not). */
export const TRUST_REQUIRING_PI_ENTRIES: ReadonlyArray<string> = [
  "settings.json",
  "mcp.json",
  "extensions",
  "skills",
  "prompts",
  "themes",
  "SYSTEM.md",
  "APPEND_SYSTEM.md"
]

export type DefaultProjectTrust = "ask" | "always" | "never"

export interface TrustInputs {
  /** Paths (as the person would see them) of the resources that need trust; empty when none. */
  readonly resources: ReadonlyArray<string>
  /** The saved decision for the folder or its nearest parent that has one. */
  readonly saved: { readonly path: string; readonly decision: boolean } | null
  readonly defaultProjectTrust: DefaultProjectTrust
  /** Where the saved decisions live. */
  readonly trustFile: string
}

export interface TrustVerdict {
  /** `asks`: the TUI asks at start-up; print, JSON and RPC modes then run untrusted. */
  readonly state: "trusted" | "untrusted" | "asks"
  /** Why, in one sentence. */
  readonly why: string
  /** How to trust the project, when it is not trusted for sure. */
  readonly howToTrust: string | null
}

/** What a person does to trust a project: the words of every place that reports an untrusted one. */
export const HOW_TO_TRUST =
  "start pi in the project and choose Trust (or type /trust, then restart pi); for one run, pi --approve"

export const trustVerdict = (i: TrustInputs): TrustVerdict => {
  const needs = i.resources.length > 0
  const what = i.resources.join(", ")
  if (i.saved !== null) {
    return i.saved.decision
      ? { state: "trusted", why: `trusted in ${i.trustFile} (${i.saved.path})`, howToTrust: null }
      : { state: "untrusted", why: `marked not trusted in ${i.trustFile} (${i.saved.path})`, howToTrust: HOW_TO_TRUST }
  }
  if (!needs) return { state: "trusted", why: "nothing in the project needs Pi's trust", howToTrust: null }
  switch (i.defaultProjectTrust) {
    case "always":
      return { state: "trusted", why: `${what} needs trust, and defaultProjectTrust is "always"`, howToTrust: null }
    case "never":
      return { state: "untrusted", why: `${what} needs trust, and defaultProjectTrust is "never"`, howToTrust: HOW_TO_TRUST }
    case "ask":
      return {
        state: "asks",
        why: `${what} needs trust and no decision is saved: Pi asks at start-up, and print mode (pi -p) runs untrusted`,
        howToTrust: HOW_TO_TRUST
      }
  }
}

/** One line for a status display. */
export const trustLine = (v: TrustVerdict): string =>
  v.state === "trusted"
    ? `trusted (${v.why})`
    : `${v.state === "untrusted" ? "NOT trusted" : "not decided"}: ${v.why}. No memory is injected or recalled while Pi does not trust the project. To trust it: ${v.howToTrust}`

/**
 * The one line a print-mode run (`pi -p`) writes to stderr when Pi does not trust the project there: memory is off
 * for the run, why (`v` is what the files say; when they say trusted, the run was told otherwise), and how to trust it.
 */
export const untrustedRunLine = (v: TrustVerdict): string => {
  const why = v.state === "trusted" ? "Pi was told not to trust it for this run (--no-approve, or an extension's answer)" : v.why
  const what = v.state === "asks" ? "Pi has not been told whether to trust this project" : "Pi does not trust this project"
  return `Project memory is off for this run: ${what} (${why}). To trust it: ${HOW_TO_TRUST}.`
}
