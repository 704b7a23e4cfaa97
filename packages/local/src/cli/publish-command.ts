import { randomUUID } from "node:crypto";
import type { Runtime } from "@table-archiver/core";
import { createEntryHandler, type EntryOutcome, encodePubSubData } from "@table-archiver/entry";
import { runWorker } from "../worker/run-worker";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { createProgressReporter } from "./progress-reporter";
import { type MessageSource, readMessage } from "./read-message";
import { failureLine, refusalLine, summarizeOutcomes } from "./worker-summary";

export interface PublishOptions extends MessageSource {
  readonly wait?: boolean;
}

/**
 * Delivers a message to the entry function as Pub/Sub would (a CloudEvent
 * whose data carries the base64 JSON), then optionally works the local queue
 * until it is empty.
 */
export async function publishCommand(runtime: Runtime, options: PublishOptions, io: CliIo): Promise<number> {
  const message = await readMessage(options, io);
  const deliver = createEntryHandler(async () => runtime);
  const outcome = await deliver({ id: randomUUID(), data: encodePubSubData(message) });
  if (outcome.outcome === "rejected") {
    writeLine(io.stderr, `error: ${outcome.error.message}`);
    return EXIT.badInput;
  }
  writeLine(io.stdout, summarize(outcome));
  if (outcome.outcome === "cleanup") {
    const { table, dryRun, refusals } = outcome.summary;
    for (const { day, reason } of refusals) {
      writeLine(io.stderr, refusalLine(dryRun ? "refused (dry run)" : "refused", table, day, reason));
    }
  }
  if (!options.wait) return EXIT.ok;
  return waitForQueue(runtime, io);
}

/**
 * Works the queue until it is empty. Each task that fails for good or is
 * refused is printed to stderr as it happens; the closing line on stdout says
 * what the run came to. Exits 1 when any task failed for good or was refused.
 */
async function waitForQueue(runtime: Runtime, io: CliIo): Promise<number> {
  const reporter = createProgressReporter(io, await runtime.queue.count());
  const worker = await runWorker(runtime, {
    onProgress: (p) => reporter.update(p),
    onFailed: (failure) => reporter.printError(failureLine(failure)),
  });
  try {
    await worker.drained();
  } finally {
    reporter.stop();
    await worker.close();
  }
  const outcomes = worker.outcomes();
  writeLine(io.stdout, `queue jobs-migration is empty: ${summarizeOutcomes(outcomes)}`);
  return outcomes.failed.length > 0 ? EXIT.failed : EXIT.ok;
}

function summarize(outcome: Exclude<EntryOutcome, { outcome: "rejected" }>): string {
  if (outcome.outcome === "migration") {
    return outcome.plans
      .map(
        (p) =>
          `accepted: ${p.table}: ${p.added} days enqueued${p.days.length ? ` (${p.days[0]} .. ${p.days.at(-1)})` : ""}, cutoff ${p.cutoff}` +
          (p.alreadyQueued ? `, ${p.alreadyQueued} already queued` : ""),
      )
      .join("\n");
  }
  const { refusals: _printedToStderr, ...summary } = outcome.summary;
  return `accepted: cleanup ${JSON.stringify(summary)}`;
}
