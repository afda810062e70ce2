/**
 * The dream's delete cap: one consolidation pass may delete at most a quarter of the topics it started with, rounded
 * down. A directory of 2 or 3 topics may lose one (so two duplicates can still be merged into one); a directory of
 * 0 or 1 topics loses none. The pass goes on; only the deletes beyond the limit are refused.
 */
export const DELETE_CAP_FRACTION = 1 / 4
/** From this many topics on, one delete is allowed even where a quarter rounds down to none. */
export const DELETE_CAP_SMALL_DIR_MIN_TOPICS = 2

/** The most deletes a pass over `topics` topics may make. */
export const deleteLimit = (topics: number): number => {
  const quarter = Math.floor(Math.max(0, topics) * DELETE_CAP_FRACTION)
  return topics >= DELETE_CAP_SMALL_DIR_MIN_TOPICS ? Math.max(1, quarter) : quarter
}

/** May the `nth` delete of a pass (1-based) go ahead, with `topics` topics at the start of the pass? */
export const deleteAllowed = (nth: number, topics: number): boolean => nth <= deleteLimit(topics)

/** What the model reads when a delete is refused: what happened and what to do instead. */
export const deleteCapReason = (file: string, deleted: number, topics: number): string =>
  `Refused: deleting ${file} would take this pass past its delete cap (${deleted} of the ${topics} topics it started ` +
  `with already deleted; at most ${deleteLimit(topics)} may go in one pass). Keep ${file}: merge what is worth keeping ` +
  "into another topic or leave it as it is, and carry on with the rest. The user can delete more by hand."

/** The run record's note on refused deletes: the limit as it applied, and the files kept. */
export const deleteCapNote = (refused: ReadonlyArray<string>, topics: number): string =>
  `${refused.length} delete(s) refused by the delete cap (at most ${deleteLimit(topics)} of ${topics} topics in one pass): ${refused.join(", ")}`
