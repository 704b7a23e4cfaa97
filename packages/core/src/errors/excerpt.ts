/**
 * `text` as an error may quote it: whole when short, else its first `max`
 * characters and `…`. Input echoed back whole (a 3 MB key, a name built to
 * break a statement) would make the error as large as the input, in logs and
 * HTTP answers alike.
 */
export function excerpt(text: string, max = 64): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
