import type { CleanupSummary } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import type { EntryOutcome } from "@table-archiver/entry";
import { type CliIo, EXIT } from "./cli-io";
import { deliverMessage } from "./deliver-message";
import { createScreen, type Screen } from "./progress-reporter";
import { type MessageSource, readMessage } from "./read-message";
import { count, number } from "./wording";
import { workQueue } from "./worker-command";
import { refusalLine } from "./worker-summary";

export interface PublishOptions extends MessageSource {
  readonly wait?: boolean;
}

/**
 * Delivers a message to the entry function as Pub/Sub would (a CloudEvent
 * whose data carries the base64 JSON), then optionally works the local queue
 * until it is empty. `screen` is where lines go (the runtime's logger should
 * print through the same one, so its lines stay clear of the progress bar).
 */
export async function publishCommand(
  runtime: Runtime,
  options: PublishOptions,
  io: CliIo,
  screen: Screen = createScreen(io),
): Promise<number> {
  const message = await readMessage(options, io);
  const outcome = await deliverMessage(runtime, message);
  if (outcome.outcome === "rejected") {
    screen.print("err", `error: ${outcome.error.message}`);
    // A message that can never be right is bad input; a refusal (queued copies, no warehouse) is a failed run.
    return outcome.error.code === "INVALID_INPUT" ? EXIT.badInput : EXIT.failed;
  }
  for (const line of acceptedLines(outcome)) screen.print("out", line);
  if (outcome.outcome === "cleanup") {
    const { table, dryRun, refusals } = outcome.summary;
    for (const { day, reason } of refusals) {
      screen.print("err", refusalLine(dryRun ? "refused (dry run)" : "refused", table, day, reason));
    }
  }
  if (!options.wait) return EXIT.ok;
  return workQueue(runtime, { drain: true }, screen);
}

/** What the entry function accepted, in words: one line per table. */
export function acceptedLines(outcome: Exclude<EntryOutcome, { outcome: "rejected" }>): string[] {
  if (outcome.outcome === "duplicate") {
    return [`accepted: a second delivery of policy ${outcome.policy}'s scheduled run; nothing done`];
  }
  if (outcome.outcome === "migration") {
    return outcome.plans.map(
      (p) =>
        `accepted: ${p.table}: ${count(p.added, "day")} enqueued${p.days.length ? ` (${p.days[0]} .. ${p.days.at(-1)})` : ""}, cutoff ${p.cutoff}` +
        (p.alreadyQueued ? `, ${number(p.alreadyQueued)} already queued` : "") +
        (p.migratedElsewhere
          ? `; ${count(p.migratedElsewhere, "day")} of the range already migrated to ${p.otherDestinations.join(", ")}, ` +
            `not ${p.destination} (each day is copied once)`
          : ""),
    );
  }
  return [cleanupLine(outcome.summary), ...partitionLines(outcome.summary)];
}

/**
 * One line per partition holding days to clean: `partition p2024_01: emptied
 * at once (31 days)`, or `partition pmax: day by day (3 days): <why>`.
 */
function partitionLines(s: CleanupSummary): string[] {
  return s.partitions.map(({ partition, path, days, reason }) => {
    const name = partition === "*" ? "every partition" : `partition ${partition}`;
    return path === "exchange"
      ? `  ${name}: ${s.dryRun ? "would be emptied" : "emptied"} at once (${count(days.length, "day")})`
      : `  ${name}: day by day (${count(days.length, "day")}): ${reason ?? ""}`;
  });
}

/**
 * `accepted: cleanup of orders: 365 days queued, 0 already queued, 0 refused`;
 * a dry run: `dry run of cleanup of orders: 365 days verified, 0 refused,
 * 1,234,567 rows would be deleted; nothing was deleted`.
 */
function cleanupLine(s: CleanupSummary): string {
  const cleaned = s.alreadyCleaned > 0 ? `, ${number(s.alreadyCleaned)} already cleaned` : "";
  if (!s.dryRun) {
    const partitions = s.partitions.filter((p) => p.path === "exchange").length;
    const queued =
      partitions > 0
        ? `${count(s.enqueued, "task")} queued (${count(partitions, "partition")} emptied at once, ${count(Math.max(0, s.enqueued - partitions), "day")})`
        : `${count(s.enqueued, "day")} queued`;
    return (
      `accepted: cleanup of ${s.table}: ${queued}, ` +
      `${number(s.alreadyQueued)} already queued, ${number(s.refused)} refused${cleaned}`
    );
  }
  const resuming = s.resuming > 0 ? `, ${number(s.resuming)} part-deleted (would resume)` : "";
  return (
    `dry run of cleanup of ${s.table}: ${count(s.verified, "day")} verified${resuming}, ` +
    `${number(s.refused)} refused${cleaned}, ${count(s.rowsToDelete, "row")} would be deleted; nothing was deleted`
  );
}
