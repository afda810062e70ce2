/**
 * A whole number written with a comma between each group of three digits ("1,024"), as the en-US locale writes it.
 * Plain string work: `toLocaleString` starts the platform's locale data on its first call, about 10 ms of a `pm`
 * command's start. Pure.
 */
export const grouped = (n: number): string => {
  if (!Number.isSafeInteger(n)) return String(n)
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  return n < 0 || Object.is(n, -0) ? `-${digits}` : digits
}
