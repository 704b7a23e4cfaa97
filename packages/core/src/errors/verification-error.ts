import { ArchiverError } from "./archiver-error";

/**
 * Why a day was refused, in a word an operator's summary can group by:
 * - `changed`: the source's rows differ from the copy (added, gone or changed);
 * - `not-fingerprinted`: copied before content fingerprints were recorded;
 * - `warehouse`: the warehouse no longer holds the copy as recorded;
 * - `no-record`: no usable copy record (missing, or made with another column);
 * - `foreign-key`: rows of another table still reference the day's rows;
 * - `trigger`: the table has a DELETE trigger and the message did not allow it;
 * - `queued`: the migration of the table is still queued;
 * - `rows-after-cleanup`: a day recorded as cleaned holds rows again;
 * - `privilege`: the database account lacks a privilege a safety check needs
 *   (seeing every foreign key or trigger, reading a throttle's signal);
 * - `other`: anything else that must stop the day.
 */
export type RefusalReason =
  | "changed"
  | "not-fingerprinted"
  | "warehouse"
  | "no-record"
  | "foreign-key"
  | "trigger"
  | "queued"
  | "rows-after-cleanup"
  | "privilege"
  | "other";

/** Figures that must agree do not. Stop that day, leave its data untouched, go on with the others. */
export class VerificationError extends ArchiverError {
  readonly code = "VERIFICATION_FAILED";
  /** Why, for summaries; the message says it in full. */
  readonly reason: RefusalReason;

  constructor(message: string, options: { field?: string; cause?: unknown; reason?: RefusalReason } = {}) {
    super(message, options);
    this.reason = options.reason ?? "other";
  }
}
