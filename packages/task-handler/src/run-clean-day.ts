import { type CleanDayTask, cleanDay, type DayCleanupReport, type Runtime } from "@table-archiver/core";

/** One cleanup task: verify (first run only), then delete the day in chunks within its recorded range. */
export function runCleanDay(runtime: Runtime, task: CleanDayTask): Promise<DayCleanupReport> {
  return cleanDay(runtime.cleanup, task);
}
