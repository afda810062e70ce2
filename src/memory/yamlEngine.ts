/**
 * The YAML side of frontmatter: gray-matter over the `yaml` package (YAML 1.2 core: dates stay strings, unique keys
 * enforced), with gray-matter's executable engines disabled. Only headers the strict fast path in frontmatter.ts
 * does not read come here, so the bundles load this module on first use, synchronously, from a file of its own
 * (scripts/build.mjs): together the two packages cost more to evaluate than the rest of a scan.
 */
import matter from "gray-matter"
import { parse as parseYaml } from "yaml"

const refuse = (): never => {
  throw new Error("executable frontmatter engines are disabled")
}

const engines = {
  yaml: {
    parse: (input: string): object => parseYaml(input, { uniqueKeys: true, schema: "core", logLevel: "error" }) as object,
    stringify: (): string => refuse()
  },
  js: { parse: refuse, stringify: refuse },
  javascript: { parse: refuse, stringify: refuse }
}

/**
 * Header data and body of a source that opens with a `---` fence; throws on YAML it cannot read. A fresh options
 * object on every call: gray-matter caches results by content otherwise.
 */
export const splitWithYaml = (source: string): { readonly data: unknown; readonly body: string } => {
  const parsed = matter(source, { engines, language: "yaml" })
  return { data: parsed.data, body: parsed.content }
}
