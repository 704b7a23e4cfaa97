import { RefusalError } from "../../errors";
import type { Row } from "../../model/table-schema";

/**
 * The refusal of a replace that would leave a copied day with fewer rows than
 * it holds: rows that left the source (cleanup deleted them, and its record may
 * be lost) would leave the warehouse too, and it may hold their only copy.
 */
export function shrinkRefusal(label: string, rows: number, held: number): RefusalError {
  const source =
    rows === 0 ? "the source has no rows for the day" : `the source has ${rows} rows for the day`;
  return new RefusalError(
    `${label}: ${source} but the warehouse holds ${held}; refusing to ${rows === 0 ? "empty" : "shrink"} a copied day. ` +
      "If a cleanup of this day started, finish it rather than copying the day again",
    { reason: "changed" },
  );
}

/**
 * Passes the batches on, and fails at their end, before the warehouse
 * commits the replace, when they held fewer rows than the day holds (`held`).
 */
export async function* refuseToShrink(
  label: string,
  held: number,
  batches: AsyncIterable<readonly Row[]>,
): AsyncGenerator<readonly Row[]> {
  let rows = 0;
  for await (const batch of batches) {
    rows += batch.length;
    yield batch;
  }
  if (rows < held) throw shrinkRefusal(label, rows, held);
}
