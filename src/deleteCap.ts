/**
 * The dream's delete cap: one consolidation pass may not delete more than a quarter of the topics it started with,
 * once it has deleted at least 4. The pass goes on; only the deletes beyond the line are refused.
 */
export const DELETE_CAP_FRACTION = 1 / 4
export const DELETE_CAP_MIN_DELETES = 4

/** May the `nth` delete of a pass (1-based) go ahead, with `topics` topics at the start of the pass? */
export const deleteAllowed = (nth: number, topics: number): boolean =>
  nth < DELETE_CAP_MIN_DELETES || nth <= topics * DELETE_CAP_FRACTION

/** The most deletes a pass over `topics` topics may make. */
export const deleteLimit = (topics: number): number =>
  Math.max(DELETE_CAP_MIN_DELETES - 1, Math.floor(topics * DELETE_CAP_FRACTION))

/** What the model reads when a delete is refused: what happened and what to do instead. */
export const deleteCapReason = (file: string, deleted: number, topics: number): string =>
  `Refused: deleting ${file} would take this pass past its delete cap (${deleted} of the ${topics} topics it started ` +
  `with already deleted; at most ${deleteLimit(topics)} may go in one pass). Keep ${file}: merge what is worth keeping ` +
  "into another topic or leave it as it is, and carry on with the rest. The user can delete more by hand."
