/** When the next dream may run, in words: the time condition (when it is still ahead) and the session count. */
export const nextDreamText = (eligibleAt: number | null, now: number, minSessions: number): string => {
  const sessions = `${minSessions} other session${minSessions === 1 ? "" : "s"} of this project`
  if (eligibleAt === null || eligibleAt === Number.NEGATIVE_INFINITY) return `once ${sessions} have been active (no dream yet, so no waiting time)`
  if (eligibleAt <= now) return `once ${sessions} have been active since the last dream (its waiting time is over)`
  return `not before ${new Date(eligibleAt).toISOString()}, and once ${sessions} have been active since the last dream`
}
