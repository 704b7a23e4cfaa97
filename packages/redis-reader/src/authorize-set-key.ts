import { forbidden } from "@table-archiver/core/http";

/**
 * The only keys the reader may read: `mig_` and a table name of 1-64 letters,
 * digits, `_` or `$` (the identifiers the archiver accepts). Anchored and
 * without flags, so newlines, spaces, glob characters and over-long names all
 * fail; the key is then used as a literal, never as a pattern.
 */
const MIGRATED_DAYS_KEY = /^mig_[A-Za-z0-9_$]{1,64}$/;

/** Returns the key when it names a migrated-days set; otherwise refuses with 403. */
export function authorizeSetKey(key: string): string {
  if (!MIGRATED_DAYS_KEY.test(key)) {
    throw forbidden("data: only migrated-days sets mig_<table> can be read (table: 1-64 of A-Z a-z 0-9 _ $)");
  }
  return key;
}
