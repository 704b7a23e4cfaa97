import { setTimeout as sleep } from "node:timers/promises";
import type { CopyDayTask } from "../../model/task";
import type { DayStream } from "../../ports/source-database";
import type { Warehouse } from "../../ports/warehouse";
import { createNicePace, paceBatches } from "../pacing/nice-pace";
import { capBatches, cappedRows, rateCapPace } from "../pacing/rate-cap-pace";
import type { CopyDayDeps } from "./copy-deps";
import type { CopyTarget } from "./copy-facts";
import { keepHeldRows } from "./keep-held-rows";

/**
 * The batches a copy writes, built in one place: the source's day (in key
 * order for a re-copy that keeps held rows) in batches of COPY_BATCH_ROWS,
 * or fewer under a rate cap (cappedRows), read no further ahead than the
 * pace lets them through when one applies (`paced`), each let through after
 * the source's rest (COPY_NICE_RATIO) and its turn under the table's rate
 * cap, and for a re-copy checked against the keys the warehouse holds. Read
 * lazily: nothing is asked of the source before the replace reads the first batch.
 */
export function dayBatches(
  deps: CopyDayDeps,
  task: CopyDayTask,
  target: CopyTarget,
  warehouse: Warehouse,
): DayStream {
  const stream = deps.source.streamDay(
    target.schema,
    target.at.filterColumn,
    target.at.day,
    cappedRows(deps.batchRows, target.maxRowsPerSecond),
    {
      ...(target.keepHeldRows ? { inKeyOrder: true } : {}),
      ...(target.maxRowsPerSecond || deps.niceRatio ? { paced: true } : {}),
    },
  );
  const wait = deps.sleep ?? ((ms: number) => sleep(ms));
  const nice = createNicePace({ ratio: deps.niceRatio ?? 0, sleep: wait });
  const capped = rateCapPace(deps.rateCap, `copy:${task.table}`, target.maxRowsPerSecond, wait);
  const paced = capBatches(paceBatches(stream.batches, nice), capped);
  return {
    batches: target.keepHeldRows ? keepHeldRows(warehouse, target.at, target.schema, paced) : paced,
    stats: () => stream.stats(),
  };
}
