/**
 * Every key `config.json` takes, as dotted paths, read off the decoders' own field tables (a struct's fields are
 * expanded one level), for the documentation's table and its check. `projects.<root>.` prefixes the per-project
 * switches.
 */
import { extractorFields, fields as taskFields, thresholdFields } from "../background/config.ts"
import { FEATURE_SECTION, FEATURES, fields as topFields } from "./config.ts"

const expand = (prefix: string, schema: unknown): ReadonlyArray<string> => {
  const nested = (schema as { fields?: Record<string, unknown> }).fields
  return nested === undefined ? [prefix] : Object.keys(nested).map((k) => `${prefix}.${k}`)
}

export const configKeys = (): ReadonlyArray<string> => {
  const keys = new Set<string>()
  for (const [key, schema] of Object.entries(topFields)) for (const k of expand(key, schema)) keys.add(k)
  // `history.enabled` is a switch of both levels too (decoded with the others; off unless set).
  const switches = ["enabled", ...FEATURES.map((f) => `${FEATURE_SECTION[f]}.enabled`), "history.enabled"]
  for (const k of switches) keys.add(k)
  for (const section of ["extractor", "dream"]) for (const k of Object.keys(taskFields)) keys.add(`${section}.${k}`)
  for (const k of Object.keys(thresholdFields)) keys.add(`dream.${k}`)
  for (const k of Object.keys(extractorFields)) keys.add(`extractor.${k}`)
  for (const k of switches) keys.add(`projects.<root>.${k}`)
  return [...keys]
}
