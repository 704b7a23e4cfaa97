/** `1 day`, `2 days`, `1,234 rows`: a count with its noun, plural unless exactly one. */
export function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** Every third digit from the right of a whole number's digits, where a comma goes. */
const THOUSANDS = /\B(?=(\d{3})+$)/g;

/**
 * `12,345`: thousands separated, the same on every locale, as
 * `toLocaleString("en-US")` writes it. Whole numbers (every count) are
 * grouped by hand: the first toLocaleString of a process starts ICU's number
 * formatting, a few ms of a command as short as `archiver status`.
 */
export function number(n: number): string {
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(THOUSANDS, ",");
  return n.toLocaleString("en-US");
}
