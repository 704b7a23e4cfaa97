import type { Runtime } from "@table-archiver/core/runtime";
import { readPolicyFile } from "../schedules/policy-file";
import { runWorker, type WorkerOutcomes } from "../worker/run-worker";
import { EXIT } from "./cli-io";
import type { Screen } from "./progress-reporter";
import { failureLine, summarizeOutcomes } from "./worker-summary";

/**
 * Works the local queue, with its progress on `screen`; with `drain`, exits
 * once it is empty, otherwise runs until SIGINT/SIGTERM. Each task that fails
 * for good or is refused is printed to stderr as it happens; the closing line
 * on stdout says what the run came to. Exits 1 when any task failed for good
 * or was refused. With `policiesFile` (ARCHIVER_POLICIES) it first reads the
 * policies, refusing to start on a broken one before anything changes, and
 * keeps their schedules (see startSchedules).
 */
export async function workQueue(
  runtime: Runtime,
  options: { drain?: boolean; policiesFile?: string | undefined },
  screen: Screen,
): Promise<number> {
  const policies = options.policiesFile ? await readPolicyFile(options.policiesFile) : undefined;
  const { copyMaxRowsPerSecond, cleanup } = runtime.config;
  const reporter = screen.progress(await runtime.queue.count(), {
    // The task's own cap (its message's max_rows_per_second), else the deployment's; 0 caps nothing.
    rateCap: (task) =>
      task.maxRowsPerSecond ??
      ((task.kind === "copy" ? copyMaxRowsPerSecond : cleanup.maxRowsPerSecond) || undefined),
  });
  let outcomes: () => WorkerOutcomes | undefined = () => undefined;
  const worker = await runWorker(runtime, {
    ...(policies ? { policies } : {}),
    onProgress: (p) => reporter.update(p, outcomes()),
    onFailed: (failure) => reporter.printError(failureLine(failure)),
  }).catch((error: unknown) => {
    // A worker that does not start (its DuckDB file held by another worker): the error gets a line of its own.
    reporter.stop();
    throw error;
  });
  outcomes = worker.outcomes;
  if (worker.schedules) screen.print("out", schedulesLine(worker.schedules));
  try {
    if (options.drain) await worker.drained();
    else await untilSignal();
  } finally {
    reporter.stop();
    await worker.close();
  }
  const done = worker.outcomes();
  const ended = options.drain ? "queue jobs-migration is empty" : "worker stopped";
  screen.print("out", `${ended}: ${summarizeOutcomes(done)}`);
  return done.failed.length > 0 ? EXIT.failed : EXIT.ok;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

/** `schedules: orders|migration, orders|cleanup; removed: events|cleanup`. */
function schedulesLine(s: { upserted: readonly string[]; removed: readonly string[] }): string {
  const set = s.upserted.length > 0 ? s.upserted.join(", ") : "none";
  return `schedules: ${set}${s.removed.length > 0 ? `; removed: ${s.removed.join(", ")}` : ""}`;
}
