import { createJsonLogger } from "@table-archiver/core/logging";
import type { LogFields, Logger } from "@table-archiver/core/ports";
import type { Channel } from "./progress-reporter";
import { count, number } from "./wording";

type Level = "debug" | "info" | "warn" | "error";
const RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface CliLoggerOptions {
  readonly level: Level;
  /** Short lines for a person (a terminal) rather than JSON lines. */
  readonly text: boolean;
  /** Writes one whole line (the screen, so it never lands inside a progress bar). */
  readonly print: (channel: Channel, line: string) => void;
  /** What holds the work back now, for the progress line; undefined once nothing does. */
  readonly status?: (text: string | undefined) => void;
}

/**
 * The runtime's logger for the CLI. Without a terminal it is the functions'
 * JSON logger, one line per entry on stdout; on a terminal each entry is a
 * short line (`copied orders 2024-01-03: 2,740 rows in 41 ms`), warnings and
 * errors on stderr. Either way, what the CLI itself reports on stderr (a
 * rejected message, a task that failed for good) is not logged a second time.
 */
export function createCliLogger(options: CliLoggerOptions): Logger {
  const json = createJsonLogger({ level: options.level, write: (line) => options.print("out", line) });
  const min = RANK[options.level];
  const log =
    (level: Level) =>
    (message: string, fields: LogFields = {}): void => {
      if (message === "cleanup waiting for load to fall")
        options.status?.(`waiting: ${String(fields.reason)}`);
      if (message === "cleanup resumes after waiting") options.status?.(undefined);
      if (RANK[level] < min || reportedByCli(message, fields)) return;
      if (!options.text) {
        json[level](message, fields);
        return;
      }
      const line = textLine(level, message, fields);
      if (line !== undefined) options.print(level === "warn" || level === "error" ? "err" : "out", line);
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** Entries whose news the CLI prints on stderr itself, as one `error:`, `failed:` or `refused:` line. */
function reportedByCli(message: string, fields: LogFields): boolean {
  // The entry handler's: publish prints `error: ...` for a rejected message, and the CLI for one that failed.
  if (message.startsWith("message rejected: ") || message === "message failed; Pub/Sub will redeliver it") {
    return true;
  }
  return message.startsWith("task failed: ") && fields.retry === false; // the worker prints `failed:` / `refused:`
}

/**
 * Entries a terminal leaves out: the CLI says the same in its own words (the
 * accepted line, the `refused:` lines on stderr, `archiver check`, the queue's
 * summary and `archiver runs` for a run that ended).
 */
const SAID_BY_CLI = new Set([
  "cleanup account check",
  "planned migration days",
  "cleanup queued",
  "cleanup dry run: nothing was deleted",
  "cleanup refused day; its rows are kept",
  "cleanup dry run: day refused; its rows would be kept",
  "cleanup refused: the migration of this table is still queued",
  "run ended",
]);

const CLEANUP_OUTCOME: Record<string, string> = {
  "cleanup: day already-clean": "no rows left to delete",
  "cleanup: day already-done": "already cleaned",
};

/** One short line for a person, or undefined to leave the entry out. */
function textLine(level: Level, message: string, fields: LogFields): string | undefined {
  if (SAID_BY_CLI.has(message)) return undefined;
  const day = `${str(fields.table)} ${str(fields.day)}`;
  const rows = (value: unknown) => count(Number(value ?? 0), "row");
  const ms = (value: unknown) => `${number(Math.round(Number(value ?? 0)))} ms`;
  switch (message) {
    case "copied day":
      return `copied ${day}: ${rows(fields.rows)} in ${ms(fields.durationMs)}`;
    case "day already migrated; duplicate task ignored":
      return `skipped ${day}: already copied`;
    case "cleaned day":
      return `cleaned ${day}: ${rows(fields.rowsDeleted)} deleted in ${ms(fields.durationMs)}${fields.resumed ? " (resumed)" : ""}`;
    case "cleanup: copying a changed day again before cleaning it":
      return `copying ${day} again before cleaning it: ${str(fields.why)}`;
    case "cleanup dry run: day verified":
      return `verified ${day}: ${rows(fields.rowsToDelete)} would be deleted`;
    case "cleanup dry run: day would resume deleting":
      return `verified ${day}: would resume deleting, ${rows(fields.rowsToDelete)} left`;
    case "cleanup waiting for load to fall":
      return `waiting ${day}: ${str(fields.reason)} (${ms(fields.waitedMs)} so far)`;
    case "cleanup resumes after waiting":
      return `resumed ${day} after waiting ${ms(fields.waitedMs)}`;
  }
  const outcome = CLEANUP_OUTCOME[message];
  if (outcome) return `cleanup ${day}: ${outcome}`;
  if (message.startsWith("task failed: ")) {
    // Only attempts the queue retries get here: a final failure is the CLI's own `failed:` line.
    const attempt =
      fields.attempt === undefined ? "" : `, attempt ${str(fields.attempt)} of ${str(fields.maxAttempts)}`;
    const what = fields.table === undefined ? "a task" : `${day} (${str(fields.kind)}${attempt})`;
    return `retrying ${what}: ${message.slice("task failed: ".length)}`;
  }
  const prefix = level === "info" || level === "debug" ? "" : level === "warn" ? "warning: " : "error: ";
  return `${prefix}${message}${details(fields)}`;
}

/** ` (table orders, day 2024-01-03)`: an entry's plain fields, for entries without a line of their own. */
function details(fields: LogFields): string {
  const shown = Object.entries(fields).filter(
    ([, value]) => typeof value === "string" || typeof value === "number" || typeof value === "boolean",
  );
  return shown.length ? ` (${shown.map(([name, value]) => `${name} ${String(value)}`).join(", ")})` : "";
}

function str(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}
