import type { Runtime } from "@table-archiver/core";
import { runWorker } from "../worker/run-worker";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { createProgressReporter } from "./progress-reporter";

/** Works the local queue; with `drain`, exits once it is empty. Otherwise runs until SIGINT/SIGTERM. */
export async function workerCommand(
  runtime: Runtime,
  options: { drain?: boolean },
  io: CliIo,
): Promise<number> {
  const reporter = createProgressReporter(io, await runtime.queue.count());
  const worker = await runWorker(runtime, { onProgress: (p) => reporter.update(p) });
  try {
    if (options.drain) await worker.drained();
    else await untilSignal();
  } finally {
    reporter.stop();
    await worker.close();
  }
  const { done, failed } = worker.progress();
  writeLine(io.stdout, `worker stopped: ${done} tasks done, ${failed} failed for good`);
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}
