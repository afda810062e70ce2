/** What several benches share: the median, and a memory directory of generated topics. Not a bench itself. */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * A memory directory of `count` topics (about 600 bytes each, mixed types, in the header the memory rules teach)
 * one minute apart, with a MEMORY.md listing the newest 200.
 */
export const topicFixture = (base: string, count: number): string => {
  const dir = join(base, `mem-${count}`)
  mkdirSync(dir, { recursive: true })
  const types = ["user", "feedback", "project", "reference"]
  const now = Date.now()
  const index: Array<string> = []
  for (let i = 0; i < count; i++) {
    const name = `topic-n${String(i).padStart(4, "0")}.md`
    const body = `Details for topic ${i}. `.repeat(20)
    writeFileSync(
      join(dir, name),
      `---\nname: Topic ${i}\ndescription: What topic ${i} covers, in one line for the selector\nmetadata:\n  type: ${types[i % 4]}\n---\n${body}\n`
    )
    utimesSync(join(dir, name), (now - i * 60_000) / 1000, (now - i * 60_000) / 1000)
    if (i < 200) index.push(`- [Topic ${i}](${name}) - what topic ${i} covers`)
  }
  writeFileSync(join(dir, "MEMORY.md"), `${index.join("\n")}\n`)
  return dir
}
