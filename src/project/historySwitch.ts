/** The memory history's switch in config.json (`history.enabled`, globally or per project): opt-in, read here. Pure. */
import type { Config } from "./config.ts"

/**
 * The memory history's switch for a project (`history.enabled`, the project's own setting first): undefined when no
 * level sets it, so a user who never opted in pays nothing, not even a look at the disk.
 */
export const historySetting = (config: Config, projectRoot: string | undefined): boolean | undefined => {
  const own = projectRoot === undefined ? undefined : config.projects[projectRoot]?.history
  return own ?? config.switches.history
}

/** The config.json path of the history switch at one level. */
export const historyPath = (projectRoot: string | undefined): ReadonlyArray<string> =>
  projectRoot === undefined ? ["history", "enabled"] : ["projects", projectRoot, "history", "enabled"]

