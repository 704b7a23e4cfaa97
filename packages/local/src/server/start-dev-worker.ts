import type { Config, Logger } from "@table-archiver/core";

export interface DevWorker {
  close(): Promise<void>;
}

/**
 * Starts the local queue worker that works `jobs-migration` with the task
 * handler's code, as `pnpm archiver worker` does. Loaded lazily so that a
 * worker that cannot start (a missing part, Redis down) is reported with its
 * reason and the rest of the local stack still serves.
 */
export async function startDevWorker(
  config: Config,
  logger: Logger,
): Promise<DevWorker | { reason: string }> {
  try {
    const [{ createRuntime }, { runWorker }] = await Promise.all([
      import("@table-archiver/core"),
      import("../worker/run-worker"),
    ]);
    const runtime = await createRuntime(config, { logger });
    const worker = await runWorker(runtime);
    return {
      async close() {
        await worker.close();
        await runtime.close();
      },
    };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}
