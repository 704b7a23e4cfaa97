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
 * - `retention-floor`: the day is younger than the retention floor (MIN_RETENTION_DAYS);
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
  | "retention-floor"
  | "privilege"
  | "other";

/**
 * The archiver refuses to go on with a day or a table, and changes nothing
 * more of it: figures that must agree do not (a copy's count, a day's rows
 * against its copy), or a safety condition does not hold (a trigger, a
 * referencing row, a missing privilege, queued copies). Stop that day, leave
 * its data untouched, go on with the others. Inside a task a refusal is a
 * value (see Refusal in the cleanup domain); it becomes this error only where
 * the task ends. Its code keeps the name log filters and alerts already use.
 */
export class RefusalError extends ArchiverError {
  readonly code = "VERIFICATION_FAILED";
  /** Why, for summaries; the message says it in full. */
  readonly reason: RefusalReason;

  constructor(message: string, options: { field?: string; cause?: unknown; reason?: RefusalReason } = {}) {
    super(message, options);
    this.reason = options.reason ?? "other";
  }
}
