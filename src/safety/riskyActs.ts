/**
 * Risky acts a memory must never authorise: text that reads as an instruction to pipe a remote script into a shell,
 * to skip or disable tests, to bypass git hooks, to turn off TLS verification, to force-push, or to send data out of
 * the machine. Lint flags such a memory (`risky-instruction`), `pm remember` refuses it unless asked with
 * `--allow-risky`, and a background write that adds one the user did not state is held for review
 * (src/writes/provenance.ts). A line that forbids the act ("never force-push to main") is not an instruction to do
 * it. Pure: patterns over text, one finding per line and act.
 */

export const RISKY_ACTS = ["remote-script", "skip-tests", "skip-hooks", "skip-tls", "force-push", "send-data-out"] as const
export type RiskyAct = (typeof RISKY_ACTS)[number]

/** How each act is named in a sentence to a person or a model. */
export const riskyActLabel: Readonly<Record<RiskyAct, string>> = {
  "remote-script": "piping a remote script into a shell",
  "skip-tests": "skipping or disabling tests",
  "skip-hooks": "bypassing git hooks",
  "skip-tls": "turning off TLS certificate verification",
  "force-push": "force-pushing",
  "send-data-out": "sending data out of the machine"
}

const SHELLS = String.raw`(?:sudo\s+)?(?:ba|z|da|k|fi|c|tc)?sh|python3?|node|perl|ruby|php|iex|pwsh|powershell`
const OFF = String.raw`(?:skip(?:ping|s)?|disabl(?:e|es|ing)|bypass(?:es|ing)?|turn(?:s|ing)?\s+off|ignor(?:e|es|ing)|comment(?:s|ing)?\s+out)`

/** "Tests must be skipped": the thing first, then the act in the passive. */
const PASSIVE = (things: string) =>
  new RegExp(String.raw`\b(?:${things})\b[^\n.;]{0,40}?\b(?:be|is|are|get|gets)\s+(?:always\s+)?(?:skipped|disabled|bypassed|turned\s+off|off|ignored|commented\s+out)\b`, "i")

const PATTERNS: ReadonlyArray<readonly [RiskyAct, RegExp]> = [
  ["remote-script", new RegExp(String.raw`\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|]*\|\s*(?:${SHELLS})\b`, "i")],
  ["remote-script", new RegExp(String.raw`\b(?:${SHELLS})\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b`, "i")],
  ["skip-tests", new RegExp(String.raw`\b${OFF}\s+(?:\S+\s+){0,3}?(?:unit\s+|integration\s+|e2e\s+)?(?:tests?|test\s+suites?|specs?|ci|checks)\b`, "i")],
  ["skip-tests", PASSIVE(String.raw`tests?|test\s+suites?|specs?|ci|checks`)],
  ["skip-tests", /(?:-DskipTests|--no-tests?\b|\bSKIP_TESTS\s*=|\b(?:it|describe|test)\.skip\b|\bxit\b)/i],
  ["skip-hooks", /--no-verify\b|\bHUSKY\s*=\s*0\b|core\.hooksPath\s*=?\s*\/dev\/null/i],
  ["skip-hooks", new RegExp(String.raw`\b${OFF}\s+(?:\S+\s+){0,2}?(?:pre-commit|pre-push|commit|git)?\s*hooks?\b`, "i")],
  ["skip-tls", new RegExp(String.raw`\b${OFF}\s+(?:\S+\s+){0,3}?(?:tls|ssl|https|certificates?|certs?)\s*(?:verification|validation|checks?|checking)?\b`, "i")],
  ["skip-hooks", PASSIVE(String.raw`hooks?`)],
  ["skip-tls", PASSIVE(String.raw`tls|ssl|certificates?|certs?|certificate\s+verification|tls\s+verification|ssl\s+verification`)],
  ["skip-tls", /\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\bGIT_SSL_NO_VERIFY\b|\bstrict-ssl\s*[=:]?\s*false\b|\bsslVerify\s*[=:]?\s*false\b|\bverify\s*=\s*False\b|\bcurl\b[^\n]*\s(?:-k|--insecure)\b|--no-check-certificate\b/i],
  ["force-push", /\bforce[- ]?push(?:es|ed|ing)?\b|\bpush\b[^\n.;]*\s(?:--force(?:-with-lease)?|-f)\b|\bpush\s+\+\S/i],
  ["send-data-out", /\bcurl\b[^\n]*\s(?:-d|--data(?:-binary|-raw)?|-F|--form|-T|--upload-file)\s+["']?@/i],
  ["send-data-out", /\b(?:send|upload|post|exfiltrate|e-?mail|forward|copy|sync)(?:s|ed|ing)?\b[^\n]{0,80}?(?:\benv(?:ironment)?(?:\s+variables)?\b|\.env\b|\bsecrets?\b|\bcredentials?\b|\btokens?\b|\bapi\s+keys?\b|\bssh\s+keys?\b|\bpasswords?\b|\bsource\s+code\b|\blogs?\b|\bdata\b)[^\n]{0,80}?\bto\s+(?:https?:\/\/|\S+@\S+\.\S+|an?\s+(?:external|remote|outside)\b)/i]
]

/** Words that make a line forbid what it names rather than order it. */
const NEGATION = /\b(?:never|not|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't|no\s+longer|avoid(?:s|ing)?|forbid(?:s|den)?|prohibit(?:s|ed)?|refuse[sd]?|without|instead\s+of|no)\b/i

export interface RiskyFinding {
  readonly act: RiskyAct
  /** 1-based line of `text`. */
  readonly line: number
  /** The words that matched, trimmed to a short quote. */
  readonly quote: string
}

/** The part of the line's sentence before `index`: a negation there turns the match into a prohibition. */
const sentenceBefore = (line: string, index: number): string => {
  const head = line.slice(0, index)
  const cut = Math.max(head.lastIndexOf(". "), head.lastIndexOf("; "), head.lastIndexOf("! "), head.lastIndexOf("? "))
  return cut < 0 ? head : head.slice(cut + 2)
}

/** Each act the text reads as an instruction to do, once per line and act, in order. */
export const riskyInstructions = (text: string): ReadonlyArray<RiskyFinding> => {
  const findings: Array<RiskyFinding> = []
  text.split("\n").forEach((line, i) => {
    const seen = new Set<RiskyAct>()
    for (const [act, pattern] of PATTERNS) {
      if (seen.has(act)) continue
      const match = pattern.exec(line)
      if (match === null) continue
      const before = sentenceBefore(line, match.index)
      // Options (`--no-verify`) are not words of the sentence; "tests must not be skipped" negates inside the match.
      if (NEGATION.test(`${before} ${match[0].replace(/(?:^|\s)--?[\w-]+/g, " ")}`)) continue
      seen.add(act)
      const quote = match[0].trim()
      findings.push({ act, line: i + 1, quote: quote.length <= 80 ? quote : `${quote.slice(0, 79)}…` })
    }
  })
  return findings
}

/** The acts named in `findings`, each once, as words for a sentence ("force-pushing and bypassing git hooks"). */
export const riskyActsSentence = (findings: ReadonlyArray<RiskyFinding>): string => {
  const labels = [...new Set(findings.map((f) => riskyActLabel[f.act]))]
  return labels.length <= 1 ? (labels[0] ?? "") : `${labels.slice(0, -1).join(", ")} and ${labels[labels.length - 1]}`
}
