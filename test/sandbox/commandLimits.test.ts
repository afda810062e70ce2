/**
 * The bounds of one sandboxed command, as rules: the `ulimit` lines carry the constants (hard and soft), bubblewrap's
 * version decides `--size`, every tmpfs of a line gets one (and /dev/shm a bounded tmpfs of its own), the process
 * bound is exact, the socat launcher runs socat under setpriv's parent-death signal.
 */
import { describe, expect, it } from "vitest"
import {
  bwrapTakesSize,
  COMMAND_CPU_SECONDS,
  COMMAND_FILE_BYTES,
  COMMAND_MEMORY_BYTES,
  COMMAND_OUTPUT_BYTES,
  COMMAND_PROCESSES,
  commandLimitLines,
  commandStoppedNotice,
  pastProcessBound,
  SANDBOX_TMPFS_BYTES,
  withBoundedTmpfs,
  withCommandLimits
} from "../../src/safety/commandLimits.ts"
import { socatLauncherScript } from "../../layers/safety/sandboxHost.ts"

describe("the ulimit lines", () => {
  it("set each limit hard and soft, in bash's units (KiB for -v and -f, seconds for -t)", () => {
    expect(commandLimitLines()).toEqual([
      `ulimit -HSv ${COMMAND_MEMORY_BYTES / 1024} 2>/dev/null`,
      `ulimit -HSt ${COMMAND_CPU_SECONDS} 2>/dev/null`,
      `ulimit -HSf ${COMMAND_FILE_BYTES / 1024} 2>/dev/null`,
      `ulimit -HSu ${COMMAND_PROCESSES} 2>/dev/null`
    ])
    expect(COMMAND_FILE_BYTES % 1024).toBe(0)
    expect(COMMAND_MEMORY_BYTES % 1024).toBe(0)
  })
  it("come before the command, which is unchanged", () => {
    expect(withCommandLimits("echo hi")).toBe(`${commandLimitLines().join("\n")}\necho hi`)
  })
  it("the constants", () => {
    expect([COMMAND_MEMORY_BYTES, COMMAND_CPU_SECONDS, COMMAND_FILE_BYTES, COMMAND_PROCESSES]).toEqual([2 * 1024 ** 3, 60, 64 * 1024 ** 2, 256])
    expect([SANDBOX_TMPFS_BYTES, COMMAND_OUTPUT_BYTES]).toEqual([128 * 1024 ** 2, 16 * 1024 ** 2])
  })
})

describe("the process bound", () => {
  it("holds at the bound and is passed one above it", () => {
    expect(pastProcessBound(COMMAND_PROCESSES - 1)).toBe(false)
    expect(pastProcessBound(COMMAND_PROCESSES)).toBe(false)
    expect(pastProcessBound(COMMAND_PROCESSES + 1)).toBe(true)
  })
})

describe("bubblewrap's --size", () => {
  it("is taken from 0.8.0 on", () => {
    expect(bwrapTakesSize("bubblewrap 0.7.9\n")).toBe(false)
    expect(bwrapTakesSize("bubblewrap 0.8.0\n")).toBe(true)
    expect(bwrapTakesSize("bubblewrap 0.9.0\n")).toBe(true)
    expect(bwrapTakesSize("bubblewrap 1.0\n")).toBe(true)
    expect(bwrapTakesSize("no version here")).toBe(false)
  })
})

describe("size-bounded tmpfs", () => {
  const size = `--size ${SANDBOX_TMPFS_BYTES}`
  const line = "bwrap --unshare-net --ro-bind / / --tmpfs /etc/ssh/ssh_config.d --tmpfs '/home/a b/.aws' --dev /dev --proc /proc -- /usr/bin/bash -c 'x --tmpfs y'"
  it("puts --size before every --tmpfs and a bounded tmpfs on /dev/shm, nothing after `--`", () => {
    expect(withBoundedTmpfs(line, true)).toBe(
      `bwrap --unshare-net --ro-bind / / ${size} --tmpfs /etc/ssh/ssh_config.d ${size} --tmpfs '/home/a b/.aws' --dev /dev ${size} --tmpfs /dev/shm --proc /proc -- /usr/bin/bash -c 'x --tmpfs y'`
    )
  })
  it("leaves a tmpfs that already has a size, and the whole line without --size support", () => {
    const sized = withBoundedTmpfs(line, true)
    expect(withBoundedTmpfs(`bwrap ${size} --tmpfs /x -- true`, true)).toBe(`bwrap ${size} --tmpfs /x -- true`)
    expect(sized.match(/--size/g)).toHaveLength(3)
    expect(withBoundedTmpfs(line, false)).toBe(line)
  })
  it("a quoted option word or a path named --tmpfs is not an option", () => {
    expect(withBoundedTmpfs("bwrap --ro-bind '--tmpfs' /x -- true", true)).toBe("bwrap --ro-bind '--tmpfs' /x -- true")
  })
})

describe("the notices", () => {
  it("name the bound that was passed", () => {
    expect(commandStoppedNotice("output")).toContain("16 MiB")
    expect(commandStoppedNotice("processes")).toContain(`${COMMAND_PROCESSES} processes`)
  })
})

describe("the socat launcher", () => {
  it("execs socat under setpriv --pdeathsig KILL with the runtime's arguments", () => {
    expect(socatLauncherScript("/usr/bin/setpriv", "/usr/bin/socat")).toMatch(
      /^#!\/bin\/sh\n(?:#.*\n)?exec \/usr\/bin\/setpriv --pdeathsig KILL -- \/usr\/bin\/socat "\$@"\n$/
    )
  })
})
