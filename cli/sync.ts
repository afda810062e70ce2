/**
 * `pm sync init REMOTE [--name X]`, `pm sync`, `pm sync status`: the project's memory synced with a git remote the
 * user names, with their own git and credentials (layers/history/sync.ts). `init` turns the memory history on for the
 * project (sync carries its commits), names the remote and the project's key there, and syncs once.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { historyPath } from "../src/project/historySwitch.ts"
import { keyOfRemoteUrl, sanitizeKey } from "../src/history/syncKey.ts"
import { originUrlOf } from "../layers/history/git.ts"
import { activeRepo } from "../layers/history/historyRepo.ts"
import { describeSynced, initSync, syncNow } from "../layers/history/sync.ts"
import { describeHistoryStatus, historyStatusOf } from "../layers/history/syncStatus.ts"
import { ConfigService } from "../layers/project/ConfigService.ts"
import { ProjectLocator } from "../layers/project/ProjectLocator.ts"
import { FileSystem } from "../layers/storage/FileSystem.ts"
import type { Parsed, syncOptions } from "./commandOptions.ts"
import { inspect, locate, waitOf } from "./locate.ts"
import { EXIT_PROBLEMS, fail, printError, printJson, printLine, setExit } from "./output.ts"

export const sync = ({ action, cwd, json, name, remote, wait }: Parsed<typeof syncOptions>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem
    const what = Option.getOrUndefined(action)
    if (what === "status") {
      const location = yield* inspect(cwd)
      const status = yield* historyStatusOf(fs, { memoryRootDir: location.memoryRootDir, memoryDir: location.memoryDir })
      if (json) return yield* printJson(status)
      for (const line of describeHistoryStatus(status, Date.now())) yield* printLine(line)
      return
    }
    if (what === "init") {
      if (Option.isNone(remote)) return yield* fail("pm sync init needs the remote: pm sync init REMOTE (a bare repository's path, an ssh or https URL)")
      const root = yield* (yield* ProjectLocator).projectRootOf(resolve(cwd))
      const key = Option.isSome(name)
        ? sanitizeKey(name.value)
        : keyOfRemoteUrl((yield* originUrlOf(root)) ?? "")
      if (key === undefined || key === "") {
        return yield* fail("this project has no origin remote to name it the same on every machine: give it a name with --name NAME (the same on each machine)")
      }
      yield* (yield* ConfigService).setKey(historyPath(root), true)
      const location = yield* locate(cwd)
      const place = { memoryRootDir: location.memoryRootDir, memoryDir: location.memoryDir }
      yield* initSync(fs, place, { remote: remote.value, key }).pipe(Effect.mapError((e) => new Error(`sync was not turned on: ${e.message}`)))
      if (!json) yield* printLine(`Sync is on: this project's memory is ${key} in ${remote.value} (memory history is on for it too).`)
    }
    const location = yield* locate(cwd)
    const place = { memoryRootDir: location.memoryRootDir, memoryDir: location.memoryDir }
    if ((yield* activeRepo(fs, place)) === undefined) {
      return yield* fail("sync is off for this project: turn it on with pm sync init REMOTE")
    }
    const result = yield* syncNow(fs, place, waitOf(wait))
    if (json) return yield* printJson(result)
    if (result._tag === "Off") return yield* fail("sync is off for this project: turn it on with pm sync init REMOTE")
    if (result._tag === "Failed") {
      yield* printError(`Sync did not finish: ${result.reason}. Memory on this machine is unchanged and works as before; the next sync tries again.`)
      return yield* setExit(EXIT_PROBLEMS)
    }
    yield* printLine(`Synced: ${describeSynced(result)}.`)
  }).pipe(Effect.catchAll((e) => fail(e.message)))
