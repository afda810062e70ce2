import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { collisionKeyOf, javaHashCode, projectKeyOf, sanitizeRoot, sha256Hex24 } from "../../src/projectKey.ts"

/** Java's String.hashCode computed another way: BigInt arithmetic modulo 2^32, then read as signed 32-bit. */
const javaHashIndependent = (s: string): number => {
  let h = 0n
  for (let i = 0; i < s.length; i++) h = (h * 31n + BigInt(s.charCodeAt(i))) % 4294967296n
  return Number(BigInt.asIntN(32, h))
}

describe("javaHashCode", () => {
  it("matches values Java prints", () => {
    expect(javaHashCode("")).toBe(0)
    expect(javaHashCode("hello")).toBe(99162322)
    // "polygenelubricants".hashCode() == Integer.MIN_VALUE in Java.
    expect(javaHashCode("polygenelubricants")).toBe(-2147483648)
  })

  it("agrees with an independent computation on long and non-ASCII strings", () => {
    for (const s of ["/home/alice/code/my-app", "/x/".repeat(300), "/données/项目/😀", "\uD800lone"]) {
      expect(javaHashCode(s)).toBe(javaHashIndependent(s))
    }
  })
})

describe("projectKeyOf (D3)", () => {
  it("replaces every non-alphanumeric UTF-16 unit with -", () => {
    expect(projectKeyOf("/home/alice/code/my-app")).toBe("-home-alice-code-my-app")
    expect(projectKeyOf("/tmp/a_b.c d")).toBe("-tmp-a-b-c-d")
    // One emoji is two UTF-16 units, so two dashes; one CJK character is one unit.
    expect(projectKeyOf("/p/😀")).toBe("-p---")
    expect(projectKeyOf("/p/项目")).toBe("-p---")
    expect(projectKeyOf("/p/e\u0301")).toBe("-p-e-")
  })

  it("keeps a key of exactly 200 characters without a suffix", () => {
    const root = `/${"a".repeat(199)}`
    expect(root.length).toBe(200)
    expect(projectKeyOf(root)).toBe(`-${"a".repeat(199)}`)
  })

  it("cuts a key of 201 characters to 200 and appends base36 of |hashCode(root)|", () => {
    const root = `/${"a".repeat(200)}`
    const h = javaHashIndependent(root)
    const key = projectKeyOf(root)
    expect(key).toBe(`-${"a".repeat(199)}-${Math.abs(h).toString(36)}`)
    expect(key.slice(0, 200)).toBe(sanitizeRoot(root).slice(0, 200))
  })

  it("hashes the whole original root, not the sanitized form", () => {
    // Both sanitize to the same 220 characters; the suffixes differ because the roots differ.
    const a = `/${"x".repeat(210)}/a-b`
    const b = `/${"x".repeat(210)}/a_b`
    expect(sanitizeRoot(a)).toBe(sanitizeRoot(b))
    expect(projectKeyOf(a)).not.toBe(projectKeyOf(b))
    expect(projectKeyOf(a)).toBe(`${sanitizeRoot(a).slice(0, 200)}-${Math.abs(javaHashIndependent(a)).toString(36)}`)
  })

  it("counts an emoji as two units at the 200 edge", () => {
    // 198 units of path + one emoji = 200 units: no suffix; one more unit: suffix.
    const at = `/${"a".repeat(197)}😀`
    expect(at.length).toBe(200)
    expect(projectKeyOf(at)).toBe(`-${"a".repeat(197)}--`)
    const over = `/${"a".repeat(198)}😀`
    expect(projectKeyOf(over)).toBe(`-${"a".repeat(198)}-` + `-${Math.abs(javaHashIndependent(over)).toString(36)}`)
  })
})

describe("memory root hash and collision key (D3, D4)", () => {
  it("is the first 24 hex digits of sha256", () => {
    const full = createHash("sha256").update("/mem/dir").digest("hex")
    expect(sha256Hex24("/mem/dir")).toBe(full.slice(0, 24))
    expect(sha256Hex24("/mem/dir")).toMatch(/^[0-9a-f]{24}$/)
  })

  it("collision key is <key>-<24 hex of sha256(root)>", () => {
    const root = "/tmp/x/a_b"
    expect(collisionKeyOf(root)).toBe(`-tmp-x-a-b-${createHash("sha256").update(root).digest("hex").slice(0, 24)}`)
  })
})
