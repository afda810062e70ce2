import { describe, expect, it } from "vitest"
import { collisionKeyOf, javaHashCode, projectKeyOf, sanitizeRoot, sha256Hex24 } from "../../src/project/projectKey.ts"

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

  // Suffixes below are literals: Java's String.hashCode of each root, computed outside this code base (Python over
  // the UTF-16 code units), then |h| in base 36.
  it("cuts a key of 201 characters to 200 and appends base36 of |hashCode(root)|", () => {
    const root = `/${"a".repeat(200)}` // hashCode -676821585
    expect(projectKeyOf(root)).toBe(`-${"a".repeat(199)}-b6ymvl`)
  })

  it("hashes the whole original root, not the sanitized form", () => {
    // Both sanitize to the same 215 characters; the suffixes differ because the roots differ.
    const a = `/${"x".repeat(210)}/a-b` // hashCode 2098508118
    const b = `/${"x".repeat(210)}/a_b` // hashCode 2098509668
    expect(sanitizeRoot(a)).toBe(`-${"x".repeat(210)}-a-b`)
    expect(sanitizeRoot(b)).toBe(`-${"x".repeat(210)}-a-b`)
    expect(projectKeyOf(a)).toBe(`-${"x".repeat(199)}-ypeb86`)
    expect(projectKeyOf(b)).toBe(`-${"x".repeat(199)}-ypecf8`)
  })

  it("counts an emoji as two units at the 200 edge", () => {
    // 198 units of path + one emoji = 200 units: no suffix; one more unit: suffix.
    const at = `/${"a".repeat(197)}😀`
    expect(at.length).toBe(200)
    expect(projectKeyOf(at)).toBe(`-${"a".repeat(197)}--`)
    const over = `/${"a".repeat(198)}😀` // hashCode -675051790
    expect(projectKeyOf(over)).toBe(`-${"a".repeat(198)}--b5wpam`)
  })
})

describe("memory root hash and collision key (D3, D4)", () => {
  // Literal digests, computed outside this code base (sha256sum).
  it("is the first 24 hex digits of sha256", () => {
    expect(sha256Hex24("/mem/dir")).toBe("d1d5b7d5693c26232c3a52ab")
  })

  it("collision key is <key>-<24 hex of sha256(root)>", () => {
    expect(collisionKeyOf("/tmp/x/a_b")).toBe("-tmp-x-a-b-4040d1c736feef78165e4668")
  })
})
