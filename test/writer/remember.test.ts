/** The pure half of `remember`: the file's name, header and body from a person's text, and the checks it passes. */
import { describe, expect, it } from "vitest"
import { parseFrontmatter } from "../../src/memory/frontmatter.ts"
import { lintTopic } from "../../src/memory/lint.ts"
import { freeFilename, rememberedTopic, slugOf } from "../../src/writes/remember.ts"
import { githubToken } from "../trust/fakeSecrets.ts"

describe("rememberedTopic", () => {
  it("a header every reader accepts, even for text holding # and : and leading dashes", () => {
    const made = rememberedTopic("- deploys: Fridays only # not Mondays\nsecond line", "project", new Set())
    expect(made._tag).toBe("Topic")
    if (made._tag !== "Topic") return
    const fm = parseFrontmatter(made.topic.content)
    expect(fm.problem).toBeUndefined()
    expect(fm.name).toBe("- deploys: Fridays only # not Mondays")
    expect(fm.description).toBe("- deploys: Fridays only # not Mondays second line")
    expect(fm.type).toBe("project")
    expect(made.topic.filename).toBe("deploys-fridays-only-not-mondays-second.md")
    expect(lintTopic({ filename: made.topic.filename, content: made.topic.content })).toEqual([])
  })

  it("file names: ASCII words, never only digits, never a numbered continuation", () => {
    expect(slugOf("Ünïcode café résumé")).toBe("unicode-cafe-resume")
    expect(slugOf("2024")).toBe("note-2024")
    expect(slugOf("???")).toBe("note")
    expect(freeFilename("notes", new Set(["notes.md"]))).toBe("notes-b.md")
    expect(freeFilename("notes", new Set(["notes.md", "notes-b.md"]))).toBe("notes-c.md")
    const many = new Set(["x.md", ...Array.from({ length: 25 }, (_, i) => `x-${String.fromCharCode(98 + i)}.md`)])
    expect(freeFilename("x", many)).toBe("x-aa.md")
    expect(lintTopic({ filename: "notes-b.md", content: "x", siblings: ["notes.md"] }).map((p) => p.code)).not.toContain("continuation-name")
  })

  it("refuses nothing to save, a credential (naming its kind, never the value) and a file over 32 KiB", () => {
    expect(rememberedTopic("   \n ", "user", new Set())).toEqual({ _tag: "Refused", reason: "nothing to remember: give the text to save" })
    const token = githubToken()
    const secret = rememberedTopic(`the token is ${token}`, "project", new Set())
    expect(secret._tag).toBe("Refused")
    if (secret._tag === "Refused") {
      expect(secret.reason).toContain("GitHub")
      expect(secret.reason).not.toContain(token)
    }
    const big = rememberedTopic("word ".repeat(8000), "project", new Set())
    expect(big._tag === "Refused" && big.reason).toMatch(/a memory file may hold at most 32,768 bytes/)
  })

  it("a credential in the first words: the refusal names the text and its line there, not the file name made of it", () => {
    const token = githubToken()
    const refused = rememberedTopic(`${token}\nis the deploy token`, "project", new Set())
    expect(refused._tag === "Refused" && refused.reason).toMatch(/^Refused: the text to remember holds what looks like a GitHub token at line 1\. /)
    expect(refused._tag === "Refused" && refused.reason.toLowerCase()).not.toContain(token.slice(4, 12).toLowerCase())
  })

  it("the index hook is what the text says after its name: nothing for a short text, the rest after a long name", () => {
    const hook = (text: string) => {
      const made = rememberedTopic(text, "project", new Set())
      return made._tag === "Topic" ? [made.topic.name, made.topic.hook] : made.reason
    }
    expect(hook("deploys happen on Fridays")).toEqual(["deploys happen on Fridays", undefined])
    expect(hook("deploys happen on Fridays only because QA tests on Thursdays")).toEqual(["deploys happen on Fridays only because QA tests", "on Thursdays"])
    // A name cut short: the hook goes on from the cut.
    const long = "Internationalisation-configuration-subsystem-initialisation happens before anything else runs"
    const [name, rest] = hook(long) as [string, string]
    expect(name.endsWith("…")).toBe(true)
    expect(rest).toBe(`…${long.slice(name.length - 1).trim()}`)
  })
})
