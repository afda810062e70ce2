import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { lintIndex, lintTopic, NEAR_BYTES, NEAR_LINES, type LintCode } from "../../src/memory/lint.ts"
import { ensureBuilt, runPm } from "../support/pm.ts"
import { tempAgent, tempDir, topicText, writeFileAt } from "../support/tmp.ts"
import { DESCRIPTION_MAX_CHARS, INDEX_LINE_MAX_CHARS, INDEX_MAX_LINES, INDEX_MAX_UNITS, RECALL_MAX_BYTES, RECALL_MAX_LINES } from "../../src/limits.ts"

const header = (description = "A short description", type = "project"): string =>
  `---\nname: T\ndescription: ${JSON.stringify(description)}\nmetadata:\n  type: ${type}\n---\n`

const codes = (filename: string, content: string): ReadonlyArray<LintCode> => lintTopic({ filename, content }).map((p) => p.code)

/** A file of exactly `lines` lines (each ending in \n), header included. */
const withLines = (lines: number): string => {
  const h = header()
  const headerLines = h.split("\n").length - 1
  return h + "x\n".repeat(lines - headerLines)
}

/** A file of exactly `bytes` bytes ending in \n, with 3-byte CJK characters and a few ASCII bytes to land exactly. */
const withBytes = (bytes: number): string => {
  const h = header()
  let body = ""
  let size = Buffer.byteLength(h)
  while (size + 3 * 40 + 1 <= bytes - 1) {
    body += "项".repeat(40) + "\n"
    size += 121
  }
  const rest = bytes - size - 1
  body += "项".repeat(Math.floor(rest / 3)) + "a".repeat(rest % 3) + "\n"
  const text = h + body
  expect(Buffer.byteLength(text)).toBe(bytes)
  return text
}

describe("lintTopic", () => {
  it("finds nothing in a well-formed topic", () => {
    expect(lintTopic({ filename: "build.md", content: `${header()}Body.\n` })).toEqual([])
  })

  it("recall-window-over at 201 lines, not at 200", () => {
    expect(codes("a.md", withLines(RECALL_MAX_LINES))).not.toContain("recall-window-over")
    expect(codes("a.md", withLines(RECALL_MAX_LINES + 1))).toContain("recall-window-over")
  })

  it("recall-window-over past 4,096 bytes of multi-byte text, not at 4,096", () => {
    // The injected text excludes the final newline, so a file of 4,097 bytes ending in \n fits exactly.
    expect(codes("a.md", withBytes(RECALL_MAX_BYTES + 1))).not.toContain("recall-window-over")
    expect(codes("a.md", withBytes(RECALL_MAX_BYTES + 2))).toContain("recall-window-over")
  })

  it("recall-window-near from 80% of the lines or bytes, not just below", () => {
    expect(codes("a.md", withLines(NEAR_LINES - 1))).not.toContain("recall-window-near")
    expect(codes("a.md", withLines(NEAR_LINES))).toContain("recall-window-near")
    expect(codes("a.md", withBytes(NEAR_BYTES - 1))).not.toContain("recall-window-near")
    expect(codes("a.md", withBytes(NEAR_BYTES))).toContain("recall-window-near")
    // Over wins over near: one problem, not two.
    const over = codes("a.md", withLines(RECALL_MAX_LINES + 1))
    expect(over).not.toContain("recall-window-near")
  })

  it("continuation-name for topic-2.md beside topic.md or topic-3.md; never for python-3.md alone, topic2.md or topic-v2.md", () => {
    const cont = (filename: string, siblings?: ReadonlyArray<string>) =>
      lintTopic({ filename, content: `${header()}x\n`, ...(siblings !== undefined ? { siblings } : {}) }).map((p) => p.code)
    expect(cont("topic-2.md", ["topic.md", "topic-2.md"])).toContain("continuation-name")
    expect(cont("topic-2.md", ["topic-2.md", "topic-3.md"])).toContain("continuation-name")
    expect(cont("sub/notes-12.md", ["notes.md", "notes-12.md"])).toContain("continuation-name")
    expect(cont("python-3.md", ["python-3.md", "rust.md"])).not.toContain("continuation-name")
    expect(cont("python-3.md", ["python-3.md", "python-tips.md"])).not.toContain("continuation-name")
    expect(cont("topic-2.md")).not.toContain("continuation-name")
    expect(cont("topic2.md", ["topic.md", "topic2.md"])).not.toContain("continuation-name")
    expect(cont("topic-v2.md", ["topic.md", "topic-v2.md"])).not.toContain("continuation-name")
    expect(cont("2024-notes.md", ["2024.md", "2024-notes.md"])).not.toContain("continuation-name")
  })

  it("frontmatter-missing and frontmatter-invalid", () => {
    expect(codes("a.md", "# no header\n")).toEqual(["frontmatter-missing"])
    expect(codes("a.md", "---\nname: x\n")).toEqual(["frontmatter-invalid"])
    expect(codes("a.md", "---\n- a\n---\n")).toEqual(["frontmatter-invalid"])
    expect(codes("a.md", "---\nname: a\nname: b\n---\n")).toEqual(["frontmatter-invalid"])
  })

  it("description-missing when absent or empty", () => {
    expect(codes("a.md", "---\nname: T\nmetadata:\n  type: user\n---\nx\n")).toEqual(["description-missing"])
    expect(codes("a.md", "---\nname: T\ndescription: ''\nmetadata:\n  type: user\n---\nx\n")).toEqual(["description-missing"])
  })

  it("description-too-long over 300 characters, with CJK, combining marks and emoji counted in UTF-16 units", () => {
    const cjk = "项".repeat(DESCRIPTION_MAX_CHARS)
    expect(codes("a.md", `${header(cjk)}x\n`)).toEqual([])
    expect(codes("a.md", `${header(`${cjk}项`)}x\n`)).toEqual(["description-too-long"])
    const combining = "e\u0301".repeat(DESCRIPTION_MAX_CHARS / 2)
    expect(codes("a.md", `${header(combining)}x\n`)).toEqual([])
    expect(codes("a.md", `${header(`${combining}e`)}x\n`)).toEqual(["description-too-long"])
    const emoji = "😀".repeat(DESCRIPTION_MAX_CHARS / 2)
    expect(codes("a.md", `${header(emoji)}x\n`)).toEqual([])
    expect(codes("a.md", `${header(`${emoji}a`)}x\n`)).toEqual(["description-too-long"])
  })

  it("type-unknown for a type outside the four, not for a known one", () => {
    expect(codes("a.md", `${header("d", "idea")}x\n`)).toEqual(["type-unknown"])
    for (const t of ["user", "feedback", "project", "reference"]) expect(codes("a.md", `${header("d", t)}x\n`)).toEqual([])
  })

  it("gives every problem a message naming the file", () => {
    for (const p of lintTopic({ filename: "notes-3.md", content: "x".repeat(5000) })) expect(p.message).toContain("notes-3.md")
  })
})

describe("lintIndex", () => {
  const line = (i: number): string => `- [Topic ${i}](topic-${i}x.md) - hook`

  it("finds nothing in a well-formed index", () => {
    expect(lintIndex(`${line(1)}\n${line(2)}\n`)).toEqual([])
    expect(lintIndex(`# Memory\n\n${line(1)}\n* [B](b.md)\n1. [C](c.md)\n[D](d.md)\n`)).toEqual([])
  })

  it("index-too-long over 200 lines, not at 200", () => {
    const at = Array.from({ length: INDEX_MAX_LINES }, (_, i) => line(i)).join("\n")
    expect(lintIndex(at).map((p) => p.code)).not.toContain("index-too-long")
    expect(lintIndex(`${at}\n${line(999)}`).map((p) => p.code)).toContain("index-too-long")
  })

  it("index-too-long over 25,000 UTF-16 units (emoji count two), not at 25,000", () => {
    // 200 lines would trip the line limit: 168 lines of 147 units and their breaks, then one padding line of CJK.
    const lines: Array<string> = []
    for (let i = 0; i < 168; i++) lines.push(`- [T](t${String(i).padStart(3, "0")}.md) - ${"😀".repeat(65)}`)
    const used = lines.join("\n").length + 1
    const padHead = "- [P](p.md) - "
    lines.push(padHead + "项".repeat(INDEX_MAX_UNITS - used - padHead.length))
    const at = lines.join("\n")
    expect(at.length).toBe(INDEX_MAX_UNITS)
    const codesAt = lintIndex(at).map((p) => p.code)
    expect(codesAt).toEqual([])
    expect(lintIndex(`${at}项`).map((p) => p.code)).toContain("index-too-long")
  })

  it("index-line-too-long over 150 characters, not at 150", () => {
    const at = `- [T](t.md) - ${"项".repeat(INDEX_LINE_MAX_CHARS - 14)}`
    expect(at.length).toBe(INDEX_LINE_MAX_CHARS)
    expect(lintIndex(at)).toEqual([])
    expect(lintIndex(`${at}a`).map((p) => p.code)).toEqual(["index-line-too-long"])
  })

  it("index-line-not-link for prose, two links or no list marker", () => {
    expect(lintIndex("Some remembered fact.").map((p) => p.code)).toEqual(["index-line-not-link"])
    expect(lintIndex("- [A](a.md) and [B](b.md)").map((p) => p.code)).toEqual(["index-line-not-link"])
    expect(lintIndex("see [A](a.md)").map((p) => p.code)).toEqual(["index-line-not-link"])
    expect(lintIndex("- just text").map((p) => p.code)).toEqual(["index-line-not-link"])
  })

  it("names the line number", () => {
    const problems = lintIndex(`${line(1)}\nprose here\n`)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.message).toContain("line 2")
  })
})

describe("secret", () => {
  // Made-up values in the documented formats.
  const GITHUB = "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz"
  const AWS_ID = "AKIAQ3EGRT5MZ7XJ2KPL"

  it("names the kind and the line of each credential in a topic, never the value", () => {
    const content = `${header()}Release notes.\nCI token: ${GITHUB}\nBackup user key ${AWS_ID}\n`
    const problems = lintTopic({ filename: "release.md", content }).filter((p) => p.code === "secret")
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^release\.md line 8 looks like it holds a GitHub token\. .*remove or redact it/),
      expect.stringMatching(/^release\.md line 9 looks like it holds an AWS access key ID\./)
    ])
    for (const p of problems) {
      expect(p.message).not.toContain(GITHUB)
      expect(p.message).not.toContain(AWS_ID)
    }
  })

  it("finds a credential in the index too", () => {
    const problems = lintIndex(`- [A](a.md) - deploys with ${GITHUB}\n`)
    expect(problems.map((p) => p.code)).toEqual(["secret"])
    expect(problems[0]!.message).toContain("MEMORY.md line 1")
    expect(problems[0]!.message).not.toContain(GITHUB)
  })

  it("stays quiet about prose on secrets, placeholders and hashes", () => {
    const content = `${header()}Tokens live in the vault; never paste them here.\nGITHUB_TOKEN=\${{ secrets.GITHUB_TOKEN }}\nCommit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f\n`
    expect(codes("notes.md", content)).toEqual([])
  })

  it("pm lint --json reports code secret with the line, exits 1, and prints no value", async () => {
    ensureBuilt()
    const dir = tempDir()
    writeFileAt(join(dir, "deploy.md"), topicText({ name: "Deploy", description: "How deploys authenticate", type: "project", body: `Use this:\nDB_PASSWORD=Xk9mQ2pLw7\n` }))
    writeFileAt(join(dir, "MEMORY.md"), "- [Deploy](deploy.md) - how deploys authenticate\n")
    const r = await runPm(["lint", "--json", "--memory-dir", dir], tempAgent())
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout) as Array<{ file: string; problems: Array<{ code: string; message: string }> }>
    expect(out.map((f) => [f.file, f.problems.map((p) => p.code)])).toEqual([["deploy.md", ["secret"]]])
    expect(out[0]!.problems[0]!.message).toMatch(/^deploy\.md line \d+ looks like it holds a secret value in a password, token or key setting\./)
    expect(r.stdout + r.stderr).not.toContain("Xk9mQ2pLw7")
    const human = await runPm(["lint", "--memory-dir", dir], tempAgent())
    expect(human.code).toBe(1)
    expect(human.stdout).toMatch(/^ {2}secret: /m)
    expect(human.stdout + human.stderr).not.toContain("Xk9mQ2pLw7")
  })

  it("pm lint finds disguised credentials (zero-width, look-alike letters, base64, percent-encoding, a cut line) and prints no part of them", async () => {
    ensureBuilt()
    const dir = tempDir()
    const github = "ghp_Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6Jp0Gs1QaLk9M"
    const npm = "npm_Hd6Jp0Gs1QaLk9MZq7Lm2Xc9Vb4Nk8Rt5Wy3"
    const aws = "AKIAQ3EGRT5MZ7XJ2KPL"
    const stripe = "sk_live_51Rt5Wy3Hd6Jp0Gs1QaLk9MZq7Lm2Xc9Vb4Nk8"
    const slack = "xoxb-730184259637-2948571036482-Zq7Lm2Xc9Vb4Nk8Rt5Wy3Hd6"
    const body = [
      `ci: ${github.slice(0, 9)}\u200b${github.slice(9)}`,
      `blob: ${Buffer.from(`NPM_TOKEN=${npm}`).toString("base64")}`,
      `backup: \u0410KI\u0410${aws.slice(4)}`,
      `pay=${[...stripe].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`,
      `bot ${slack.slice(0, 30)}`,
      `${slack.slice(30)} (cut)`
    ].join("\n")
    writeFileAt(join(dir, "ops.md"), topicText({ name: "Ops", description: "ops notes", type: "project", body: `${body}\n` }))
    writeFileAt(join(dir, "MEMORY.md"), "- [Ops](ops.md) - ops notes\n")
    const r = await runPm(["lint", "--json", "--memory-dir", dir], tempAgent())
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout) as Array<{ file: string; problems: Array<{ code: string; message: string }> }>
    const messages = out.find((f) => f.file === "ops.md")!.problems.filter((p) => p.code === "secret").map((p) => p.message)
    for (const label of ["a GitHub token", "an npm token", "an AWS access key ID", "a Stripe live key", "a Slack token"]) {
      expect(messages.some((m) => m.includes(label)), label).toBe(true)
    }
    const human = await runPm(["lint", "--memory-dir", dir], tempAgent())
    expect(human.code).toBe(1)
    const printed = r.stdout + r.stderr + human.stdout + human.stderr
    for (const value of [github, npm, aws, stripe, slack]) {
      // No 8-character stretch of the value's random part, as written or decoded.
      for (let i = 5; i + 8 <= value.length; i++) expect(printed).not.toContain(value.slice(i, i + 8))
    }
  })
})
