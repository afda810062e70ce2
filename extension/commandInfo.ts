/** What the entry needs to register `/memory` before the command's code is loaded. */
export const MEMORY_COMMAND_DESCRIPTION =
  "Project memory: status | on | off | open | extract | dream | undo | list | show | search | forget | recalled | remember | context"
