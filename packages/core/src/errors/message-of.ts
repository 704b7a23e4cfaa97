/** What went wrong, as one line of text: an Error's message, or anything else thrown as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
