/**
 * What the detector skips to save time, it could not have found there: a rule whose trigger sits at a known place in
 * its token is tried only where that place allows a start (src/safety/secrets/matches.ts), and over a normalised
 * view most rules read only to the end of a change's line while the rules that read past a line keep the wide
 * window (windows.ts, scan.ts). Each shortcut is checked against the plain pass it replaces, and each rule that
 * reaches past a line is shown to still find what sits on the lines after a change.
 */
import { describe, expect, it } from "vitest"
import { detectSecrets } from "../../src/safety/secrets.ts"
import { forEachMatch } from "../../src/safety/secrets/matches.ts"
import type { Rule } from "../../src/safety/secrets/rule.ts"
import { RULES, scanWork } from "../../src/safety/secrets/scan.ts"
import { characterView, joinedView } from "../../src/safety/secrets/views.ts"
import { changedWindows, SNAP, WINDOW_AFTER, WINDOW_BEFORE } from "../../src/safety/secrets/windows.ts"
import { generatedClean, generatedCredentials } from "./generatedCorpus.ts"

/** [start, text] of each match of one plain global pass of the rule's pattern. */
const plainMatches = (rule: Rule, text: string): Array<readonly [number, string]> => {
  const out: Array<readonly [number, string]> = []
  const pattern = new RegExp(rule.pattern.source, rule.pattern.flags)
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m[0].length === 0) pattern.lastIndex++
    out.push([m.index, m[0]])
  }
  return out
}
const ruleMatches = (rule: Rule, text: string): Array<readonly [number, string]> => {
  const out: Array<readonly [number, string]> = []
  forEachMatch(rule, text, (m) => out.push([m.index, m[0]]))
  return out
}

const anchored = RULES.filter((r) => r.triggerAt !== undefined)
const kindOf = (r: Rule): string => (typeof r.kind === "string" ? r.kind : r.pattern.source.slice(0, 40))

describe("a rule tried only where its trigger allows a start", () => {
  it("is a rule with triggers, and the class-led token formats are such rules", () => {
    expect(anchored.map(kindOf).sort()).toEqual(
      ["ably-key", "asana-token", "azure-devops-pat", "discord-bot-token", "ghost-admin-key", "mailchimp-key", "maxmind-key", "newrelic-key", "telegram-bot-token", "terraform-cloud-token"]
    )
    for (const r of anchored) expect(r.triggers?.length, kindOf(r)).toBeGreaterThan(0)
  })

  it("finds exactly what one plain pass finds, on every text of the corpus and on all of them in one text", () => {
    const texts = [...generatedCredentials().map((c) => c.text), ...generatedClean().map((c) => c.text)]
    const joined = texts.join("\n")
    for (const rule of anchored) {
      let found = 0
      for (const text of texts) {
        const plain = plainMatches(rule, text)
        found += plain.length
        expect(ruleMatches(rule, text), `${kindOf(rule)} in ${JSON.stringify(text.slice(0, 60))}`).toEqual(plain)
      }
      // Each format's own credentials are in the corpus, so the comparison is not between two empty lists.
      expect(found, kindOf(rule)).toBeGreaterThan(0)
      expect(ruleMatches(rule, joined), kindOf(rule)).toEqual(plainMatches(rule, joined))
    }
  })

  it("finds tokens at the text's edges, back to back, and not inside a longer run", () => {
    const ghost = RULES.find((r) => r.kind === "ghost-admin-key")!
    const key = `${"a1b2c3d4e5f6".repeat(2)}:${"0f".repeat(32)}`
    for (const text of [key, `${key} ${key}`, `x${key}`, `${key}\n${key}`, `:${key}`, `${"ab".repeat(30)}:${key}`]) {
      expect(ruleMatches(ghost, text), text).toEqual(plainMatches(ghost, text))
    }
    expect(ruleMatches(ghost, `${key} ${key}`).map(([at]) => at)).toEqual([0, key.length + 1])
    const newrelic = RULES.find((r) => r.kind === "newrelic-key")!
    // Its triggers sit at either end: a prefix (NRAK-) and a suffix after 36 hex digits (NRAL).
    const suffixed = `${"0123456789abcdef".repeat(2)}0123NRAL`
    const prefixed = `NRAK-${"A1".repeat(13)}Z`
    for (const text of [suffixed, prefixed, `${prefixed} ${suffixed}`, `${suffixed}${prefixed}`, `NRAL ${suffixed}`]) {
      expect(ruleMatches(newrelic, text), text).toEqual(plainMatches(newrelic, text))
    }
    expect(ruleMatches(newrelic, `${prefixed} ${suffixed}`)).toHaveLength(2)
  })
})

/** The character view of `text` and its windows, both reaches. */
const windowsOf = (text: string, toLineEnd: boolean): Array<[number, number]> => changedWindows(text, characterView(text)!, toLineEnd)

describe("the windows of a normalised view", () => {
  const a = "\u0430" // Cyrillic a: the character view reads it as `a`.

  it("to the end of the change's line: start WINDOW_BEFORE back at a line start, end at the line's end", () => {
    const before = `${"p".repeat(99)}\n`.repeat(5)
    const text = `${before}x${a}y\n${"q".repeat(5000)}`
    // The change is at 501, its line ends at 503; 256 back is 245, and the line holding 245 starts at 200.
    expect(windowsOf(text, true)).toEqual([[200, 503]])
    // The wide window runs on to twice WINDOW_AFTER past the change (no line break within SNAP after it).
    expect(windowsOf(text, false)).toEqual([[200, 501 + 2 * WINDOW_AFTER]])
    expect(WINDOW_BEFORE).toBe(256)
    expect(SNAP).toBe(256)
  })

  it("on a line longer than twice WINDOW_AFTER, ends there, and a later change on the line widens it", () => {
    const long = `${a}${"q".repeat(10_000)}`
    expect(windowsOf(long, true)).toEqual([[0, 2 * WINDOW_AFTER]])
    // One change at 2 * WINDOW_AFTER - 1 more: the window reaches twice WINDOW_AFTER past it.
    const two = `${a}${"q".repeat(2 * WINDOW_AFTER - 2)}${a}${"q".repeat(10_000)}`
    expect(windowsOf(two, true)).toEqual([[0, 4 * WINDOW_AFTER - 1]])
  })

  it("changes on nearby lines share one window; a change far after starts its own", () => {
    const line = "r".repeat(49)
    const text = `${a}${line}\n${a}${line}\n${`${line}\n`.repeat(20)}${a}${line}\n`
    const far = text.lastIndexOf(a)
    const lineStartBefore = (at: number): number => text.lastIndexOf("\n", at - 1) + 1
    // The first two changes: one window to the end of the second's line. The third, 1,000 characters on.
    expect(windowsOf(text, true)).toEqual([
      [0, text.indexOf("\n", 51)],
      [lineStartBefore(far - WINDOW_BEFORE), text.indexOf("\n", far)]
    ])
  })

  it("a percent-encoded line break: the line after it is a changed line too", () => {
    // Decoded, the label starts a line, where the line-anchored rule for Markdown labels reads it; as written it does not.
    const text = "notes%0A- **DB password**: Xk9mQ2vL7pR4wZt"
    expect(detectSecrets(text.replace("%0A", " "))).toEqual([])
    expect(detectSecrets(text)).toEqual([{ kind: "secret-assignment", line: 1, column: 9 }])
  })

  it("the rejoined view's window ends at the joined line, not WINDOW_AFTER past the cut", () => {
    const text = `the token Ab12cd34\nEf56gh78 is old\n${"words on a line\n".repeat(400)}`
    const view = joinedView(text)!
    expect(view.text.startsWith("the token Ab12cd34Ef56gh78 is old\n")).toBe(true)
    expect(changedWindows(text, view, true)).toEqual([[0, 33]])
  })
})

describe("rules that read past the line of a change keep the wide window", () => {
  // Body lines end in a space, so no line break reads as a token cut (the rejoined view would window them all).
  const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj \nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu \n"

  it("a private key whose header holds a look-alike letter is found by its body on the lines after", () => {
    const text = `-----BEGIN PRIV\u0410TE KEY-----\n\n${body}-----END PRIVATE KEY-----`
    expect(detectSecrets(text)).toEqual([{ kind: "pkcs8-private-key", line: 1, column: 1 }])
  })

  it("a YAML block scalar whose name holds a look-alike letter is found by its value on the next line", () => {
    expect(detectSecrets(`db:\n  p${"\u0430"}ssword: |\n    Xk9#mQ2vL7pR4wZt\n`)).toEqual([{ kind: "secret-assignment", line: 2, column: 1 }])
  })

  it("a .netrc entry whose machine word holds a look-alike letter is found by its password two lines down", () => {
    expect(detectSecrets(`m${"\u0430"}chine api.acme.io\n  login deploy\n  password Xk9mQ2vL7pR4wZt\n`)).toEqual([
      { kind: "netrc-credential", line: 1, column: 1 }
    ])
  })
})

describe("the work a cut token adds", () => {
  it("is its joined line and what comes before it, not the notes after it", () => {
    const notes = generatedClean().slice(0, 40).map((c) => c.text).join("\n\n")
    const work = (text: string): number => {
      const before = scanWork.characters
      const found = detectSecrets(text)
      expect(found.map((f) => f.kind)).toEqual(["github-token"])
      return scanWork.characters - before
    }
    const token = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"
    const whole = work(`the token ${token} is old\n${notes}`)
    const cut = work(`the token ${token.slice(0, 20)}\n${token.slice(20)} is old\n${notes}`)
    // Every rule over the joined line (about 60 characters) is at most RULES.length * 60; the notes after it are longer.
    expect(notes.length).toBeGreaterThan(2 * WINDOW_AFTER)
    expect(cut - whole).toBeLessThan(RULES.length * 80)
  })
})
