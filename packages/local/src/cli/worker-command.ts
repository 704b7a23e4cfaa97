import type { Runtime } from "@table-archiver/core";
import { runWorker } from "../worker/run-worker";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { createProgressReporter } from "./progress-reporter";
import { failureLine, summarizeOutcomes } from "./worker-summary";

/**
 * Works the local queue; with `drain`, exits once it is empty. Otherwise runs
 * until SIGINT/SIGTERM. Each task that fails for good or is refused is printed
 * to stderr as it happens; the closing line on stdout says what the run came
 * to. Exits 1 when any task failed for good or was refused.
 */
export async function workerCommand(
  runtime: Runtime,
  options: { drain?: boolean },
  io: CliIo,
): Promise<number> {
  const reporter = createProgressReporter(io, await runtime.queue.count());
  const worker = await runWorker(runtime, {
    onProgress: (p) => reporter.update(p),
    onFailed: (failure) => reporter.printError(failureLine(failure)),
  });
  try {
    if (options.drain) await worker.drained();
    else await untilSignal();
  } finally {
    reporter.stop();
    await worker.close();
  }
  const outcomes = worker.outcomes();
  const ended = options.drain ? "queue jobs-migration is empty" : "worker stopped";
  writeLine(io.stdout, `${ended}: ${summarizeOutcomes(outcomes)}`);
  return outcomes.failed.length > 0 ? EXIT.failed : EXIT.ok;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}
