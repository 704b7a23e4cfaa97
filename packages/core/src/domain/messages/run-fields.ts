import { z } from "zod";
import { isIdentifier } from "../../model/identifier";

/** Fields both messages take: who scheduled the run, and the table-wide rate cap. */
export const runFields = {
  /**
   * The retention policy whose schedule published the message (its table):
   * a second delivery of the same scheduled run does nothing.
   */
  policy: z.string({ error: "must be a string" }).refine(isIdentifier, "must be a table name").optional(),
  /** Rows copied or deleted per second for each table, across every task and worker at once. */
  max_rows_per_second: z.int({ error: "must be an integer" }).min(1, "must be 1 or more").optional(),
};
