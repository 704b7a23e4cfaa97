import type { Config } from "@table-archiver/core/config";
import type { DetachedTwin } from "@table-archiver/core/ports";
import { readPolicyFile } from "../schedules/policy-file";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { warehouseLastRuns } from "./last-runs";
import { type PolicyStatus, policyLine, policyStatuses } from "./policy-status";
import type { StatusSources } from "./status-sources";
import { count, number } from "./wording";

export interface TableStatus {
  readonly table: string;
  readonly migratedDays: number;
  readonly firstDay: string | null;
  readonly lastDay: string | null;
  /** Migrated days whose source rows cleanup has deleted. */
  readonly cleanedDays: number;
}

export interface Status {
  readonly queue: { readonly name: string; readonly tasks: number };
  readonly tables: readonly TableStatus[];
  /**
   * Twin tables an interrupted partition cleanup left in the source database,
   * holding the partition's rows; a string when MySQL could not be asked.
   */
  readonly detachedTwins: readonly DetachedTwin[] | string;
  /** With ARCHIVER_POLICIES: each table's policy, its next runs and its last run. */
  readonly policies?: readonly PolicyStatus[];
}

/** The queue's task count (0 means finished) and each table's migrated days. */
export async function readStatus(sources: StatusSources): Promise<Status> {
  const twins = sources.cleanup.partitions
    .detachedTwins()
    .catch((error: unknown) => `not checked: ${(error as Error).message}`);
  const [tasks, tables] = await Promise.all([sources.queue.count(), sources.storeLedger.tables()]);
  const rows = await Promise.all(
    tables.sort().map(async (table): Promise<TableStatus> => {
      const [days, cleaned] = await Promise.all([
        sources.storeLedger.migratedDays(table),
        sources.cleanup.state.cleanedDays(table),
      ]);
      return {
        table,
        migratedDays: days.length,
        firstDay: days[0] ?? null,
        lastDay: days.at(-1) ?? null,
        cleanedDays: cleaned.length,
      };
    }),
  );
  return { queue: { name: sources.queue.name, tasks }, tables: rows, detachedTwins: await twins };
}

/**
 * `archiver status`; with `policiesFile` (ARCHIVER_POLICIES) each policy too,
 * read before anything else, so a broken file is refused (exit 2) as the
 * worker refuses it, and with `config` each policy's last run from the
 * warehouse's run history.
 */
export async function statusCommand(
  sources: StatusSources,
  options: { json?: boolean; policiesFile?: string | undefined; config?: Config },
  io: CliIo,
  now: Date = new Date(),
): Promise<number> {
  const policies = options.policiesFile ? await readPolicyFile(options.policiesFile) : undefined;
  const runs = policies && options.config ? warehouseLastRuns(options.config, policies) : undefined;
  let status: Status;
  try {
    status = {
      ...(await readStatus(sources)),
      ...(policies ? { policies: await policyStatuses(policies, now, runs?.lastRun) } : {}),
    };
  } finally {
    await runs?.close();
  }
  if (options.json) {
    writeLine(io.stdout, JSON.stringify(status));
    return EXIT.ok;
  }
  for (const line of statusLines(status)) writeLine(io.stdout, line);
  return EXIT.ok;
}

/**
 * The text form: `queue jobs-migration: 0 tasks (finished)`, then one line
 * per table, `orders: 365 days migrated (2024-01-01 .. 2024-12-31), 200 cleaned`.
 */
export function statusLines(status: Status): string[] {
  const { name, tasks } = status.queue;
  const lines = [`queue ${name}: ${count(tasks, "task")}${tasks === 0 ? " (finished)" : ""}`];
  for (const t of status.tables) {
    const range =
      t.firstDay && t.lastDay
        ? ` (${t.firstDay === t.lastDay ? t.firstDay : `${t.firstDay} .. ${t.lastDay}`})`
        : "";
    lines.push(
      `${t.table}: ${count(t.migratedDays, "day")} migrated${range}, ${number(t.cleanedDays)} cleaned`,
    );
  }
  if (status.tables.length === 0) lines.push("no migrated tables yet");
  for (const policy of status.policies ?? []) lines.push(policyLine(policy));
  if (typeof status.detachedTwins === "string") {
    lines.push(`detached partitions: ${status.detachedTwins}`);
    return lines;
  }
  for (const twin of status.detachedTwins) {
    lines.push(
      `${twin.table}: partition ${twin.partition} detached into ${twin.twin} (${count(twin.rows, "row")}); ` +
        "an interrupted cleanup: the next cleanup of the table verifies it, then drops it or puts its rows back",
    );
  }
  return lines;
}
