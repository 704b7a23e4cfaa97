import { InvalidInputError } from "../../errors";

/**
 * The largest message the entry function and `archiver publish` read, in
 * bytes of its JSON text: 512 KiB. A real message is well under 1 KiB; the
 * largest the archiver can act on, 1000 tables (the migration message's
 * limit) of the longest names it accepts (a 64-character MySQL table and
 * column, a 288-character `project.dataset.table` destination), is about
 * 415 KiB written compactly, and fits indented too (message-size.test.ts
 * builds it). Pub/Sub carries up to 10 MB: past the limit a message is
 * refused before it is decoded or parsed, so no work grows with its size.
 */
export const MAX_MESSAGE_BYTES = 512 * 1024;

/**
 * InvalidInputError on `message` once `bytes` (all of a message, or as much
 * of a stream as was read so far) is over MAX_MESSAGE_BYTES.
 */
export function refuseOversizedMessage(bytes: number): void {
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new InvalidInputError("message", OVERSIZED);
  }
}

const OVERSIZED = `is over ${MAX_MESSAGE_BYTES / 1024} KiB (${MAX_MESSAGE_BYTES} bytes), the most a message may have`;
