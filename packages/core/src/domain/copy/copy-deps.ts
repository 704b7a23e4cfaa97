import type { DestinationRules } from "../../model/destination";
import type { Clock } from "../../ports/clock";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { RateCap } from "../../ports/rate-cap";
import type { SourceDatabase } from "../../ports/source-database";
import type { Warehouse } from "../../ports/warehouse";

export interface CopyDayDeps {
  readonly source: SourceDatabase;
  /** Opened on first use: a duplicate task for a migrated day never needs it. */
  readonly warehouse: () => Promise<Warehouse>;
  readonly ledger: MigrationLedger;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timeZone: string;
  readonly destinations: DestinationRules;
  readonly batchRows: number;
  /** Rest per unit of the source's read time (COPY_NICE_RATIO); 0 or absent reads at full speed. */
  readonly niceRatio?: number;
  /** The table-wide rate cap's shared budget (max_rows_per_second, COPY_MAX_ROWS_PER_SECOND); absent, nothing is capped. */
  readonly rateCap?: RateCap;
  /** COPY_MAX_ROWS_PER_SECOND: rows copied per second for a table across every task; 0 or absent caps nothing. */
  readonly maxRowsPerSecond?: number;
  /** Waits for the pace; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
}
