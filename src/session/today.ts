/**
 * Today's date as the main agent and the background tasks are told it, so that "next Thursday" can become a date.
 * The date is the user's local calendar date: the time zone of the process that runs Pi or `pm` (TZ when set, else
 * the system's), which is the user's own on the machine they work at. Pure: the time comes from the caller (Effect's
 * Clock), and a day is all that is shown, so the text changes once a day and no more often.
 */

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

const two = (n: number): string => String(n).padStart(2, "0")

/** `2026-12-03`: the local calendar date of `ms`. */
export const localDate = (ms: number): string => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`
}

/** `Thursday 2026-12-03`: the weekday makes "next Thursday" a lookup, not a calculation. */
export const localDay = (ms: number): string => `${WEEKDAYS[new Date(ms).getDay()]} ${localDate(ms)}`

/** The system-prompt section that carries the date (its own section, so the rules and the index stay byte for byte). */
export const DATE_SECTION = "auto_memory_date"

/** The section's text for the main agent. */
export const todayText = (ms: number): string => `Today is ${localDay(ms)} (the user's local date).`

/** The line in a background task's own instructions (never its system prompt or a forked prefix), for `localDay`. */
export const taskTodayLine = (day: string): string =>
  `Today is ${day} (the user's local date): write relative dates ("next Thursday", "last week") as absolute ones.`
