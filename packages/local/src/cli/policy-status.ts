import type { PolicyMode, RetentionPolicy } from "@table-archiver/core";
import { CronExpressionParser } from "cron-parser";
import { number } from "./wording";

/** One schedule of a policy and when it next runs. */
export interface ScheduleStatus {
  readonly mode: PolicyMode;
  readonly cron: string;
  /** ISO instant of the next run after now, in the policy's time zone. */
  readonly next: string;
}

/** What `archiver status` says of the last run of a table's policy. */
export interface LastRun {
  readonly mode: PolicyMode;
  readonly startedAt: string;
  /** In words: `3 days copied`, `refused 2 days`... */
  readonly result: string;
}

/** The last run of a table; undefined when none is recorded, `unread` when the history could not be read. */
export type LastRunSource = (table: string) => Promise<LastRun | { readonly unread: string } | undefined>;

/** No run history to read (what status shows when it is given none): every table reads "no run recorded". */
export const NO_RUN_HISTORY: LastRunSource = async () => undefined;

/** A table's policy as status shows it. */
export interface PolicyStatus {
  readonly table: string;
  readonly timeZone: string;
  readonly cleanup: RetentionPolicy["cleanup"];
  readonly window: string | null;
  readonly maxRowsPerSecond: number | null;
  readonly schedules: readonly ScheduleStatus[];
  readonly lastRun: LastRun | { readonly unread: string } | null;
}

/** When `cron` next fires after `now`, read in `timeZone` (as BullMQ reads the scheduler's pattern and tz). */
export function nextRun(cron: string, timeZone: string, now: Date): Date {
  return CronExpressionParser.parse(cron, { tz: timeZone, currentDate: now }).next().toDate();
}

export async function policyStatuses(
  policies: readonly RetentionPolicy[],
  now: Date,
  lastRun: LastRunSource = NO_RUN_HISTORY,
): Promise<PolicyStatus[]> {
  return Promise.all(
    policies.map(async (p): Promise<PolicyStatus> => {
      const schedules: Omit<ScheduleStatus, "next">[] = [{ mode: "migration", cron: p.migrate_schedule }];
      if (p.cleanup !== "off" && p.cleanup_schedule) {
        schedules.push({ mode: "cleanup", cron: p.cleanup_schedule });
      }
      return {
        table: p.source_table,
        timeZone: p.time_zone,
        cleanup: p.cleanup,
        window: p.cleanup_window ?? null,
        maxRowsPerSecond: p.max_rows_per_second ?? null,
        schedules: schedules.map((s) => ({ ...s, next: nextRun(s.cron, p.time_zone, now).toISOString() })),
        lastRun: (await lastRun(p.source_table)) ?? null,
      };
    }),
  );
}

/**
 * `orders: policy in Europe/Paris: migration "0 1 * * *" next 2026-11-29 01:00;
 * cleanup (delete) "30 2 * * *" next 2026-11-29 02:30; window 22:00-05:00;
 * cap 2,000 rows/s; last run: no run recorded`, times in the policy's zone.
 */
export function policyLine(p: PolicyStatus): string {
  const schedules = p.schedules.map(
    (s) =>
      `${s.mode === "cleanup" ? `cleanup (${p.cleanup})` : s.mode} "${s.cron}" next ${localTime(s.next, p.timeZone)}`,
  );
  const last =
    p.lastRun === null
      ? "no run recorded"
      : "unread" in p.lastRun
        ? `not read (${p.lastRun.unread})`
        : `${p.lastRun.mode} ${localTime(p.lastRun.startedAt, p.timeZone)}: ${p.lastRun.result}`;
  return [
    `${p.table}: policy in ${p.timeZone}: ${schedules.join("; ")}`,
    ...(p.cleanup === "off" ? ["cleanup off"] : []),
    ...(p.window ? [`window ${p.window}`] : []),
    ...(p.maxRowsPerSecond ? [`cap ${number(p.maxRowsPerSecond)} rows/s`] : []),
    `last run: ${last}`,
  ].join("; ");
}

/** `2026-11-29 01:00` in `timeZone`. */
function localTime(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}
