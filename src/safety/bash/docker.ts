/**
 * docker: read-only queries only. Two global options (-D, --log-level; every other one can point docker at another
 * daemon, configuration or plugins), then a query from a fixed list (ps, images, inspect, logs ... and the ls/inspect
 * forms of image, container, network, volume, context, system df), with its options read by a risky spec (an unknown
 * option may take the next word) and nothing that follows forever (`logs -f`, `stats` without --no-stream).
 */
import { hasOption, isRejected, scanOptions, type OptionSpec, type ParsedArgs } from "./options.ts"
import { show, type Word } from "./words.ts"

const DOCKER_TOP: Readonly<Record<string, ReadonlyArray<string> | null>> = {
  ps: null,
  images: null,
  inspect: null,
  logs: null,
  version: null,
  info: null,
  top: null,
  port: null,
  history: null,
  diff: null,
  stats: null,
  image: ["ls", "list", "inspect", "history"],
  container: ["ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats"],
  network: ["ls", "list", "inspect"],
  volume: ["ls", "list", "inspect"],
  context: ["ls", "list", "inspect", "show"],
  system: ["df", "info"]
}

const DOCKER_SPEC: OptionSpec = {
  shortArg: "fn",
  badLong: { follow: "follows the log forever" },
  risky: true
}

const parseDocker = (args: ReadonlyArray<Word>): { readonly offset: number; readonly parsed: ParsedArgs } | string => {
  let i = 0
  for (; i < args.length; i++) {
    const v = args[i]!.value
    if (!v.startsWith("-")) break
    if (v === "-D" || v === "--debug") continue
    if (v === "-l" || v === "--log-level") {
      i++
      continue
    }
    if (v.startsWith("--log-level=")) continue
    return `\`docker\`: global option ${show(args[i]!)} is not allowed (it can point docker at another daemon, configuration or plugins); only -D and --log-level are`
  }
  const top = args[i]
  if (top === undefined) return "`docker` needs a query such as `docker ps`"
  const subs = Object.hasOwn(DOCKER_TOP, top.value) ? DOCKER_TOP[top.value] : undefined
  if (subs === undefined) {
    return `\`docker ${top.value}\` is not an allowed read-only query; allowed: ps, images, inspect, logs, version, info, top, port, history, diff, stats --no-stream, and the ls/inspect forms of image, container, network, volume, context, system df`
  }
  let verb = top.value
  let offset = i + 1
  if (subs !== null) {
    const s = args[i + 1]
    if (s === undefined || !subs.includes(s.value)) {
      return `\`docker ${top.value}${s === undefined ? "" : ` ${s.value}`}\` is not read-only; allowed: docker ${top.value} ${subs.join("|")}`
    }
    verb = s.value
    offset = i + 2
  }
  const spec: OptionSpec =
    verb === "logs" ? { ...DOCKER_SPEC, shortArg: "n", badShort: { f: "follows the log forever" } } : DOCKER_SPEC
  const parsed = scanOptions(`docker ${verb}`, args.slice(offset), spec)
  if (isRejected(parsed)) return parsed.reject
  if (verb === "stats" && !hasOption(parsed, "--no-stream")) {
    return "`docker stats` streams forever; add --no-stream"
  }
  return { offset, parsed }
}

export const checkDocker = (_cmd: string, args: ReadonlyArray<Word>): string | undefined => {
  const r = parseDocker(args)
  return typeof r === "string" ? r : undefined
}

/** For xargs: the index in args after which appended words can no longer be options (a `--` that surely ends them), or -1. */
export const dockerOptionsClosedAt = (args: ReadonlyArray<Word>): number => {
  const r = parseDocker(args)
  return typeof r === "string" || r.parsed.closedAt < 0 ? -1 : r.offset + r.parsed.closedAt
}
