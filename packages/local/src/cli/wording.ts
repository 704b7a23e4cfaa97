/** `1 day`, `2 days`, `1,234 rows`: a count with its noun, plural unless exactly one. */
export function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** `12,345`: thousands separated, the same on every locale. */
export function number(n: number): string {
  return n.toLocaleString("en-US");
}
