import { messageOf, type RetentionPolicy } from "@table-archiver/core";
export interface DevWorker {
  close(): Promise<void>;
}

/**
 * Starts the local queue worker that works `jobs-migration` with the task
 * handler's code, as `pnpm archiver worker` does. It runs on the process's
 * shared runtime, the one the mounted functions use (the API service keeps
 * connections of its own). Loaded lazily so that a worker that cannot start
 * (a missing part, Redis down) is reported with its reason and the rest of
 * the local stack still serves. With `policies` (ARCHIVER_POLICIES, read)
 * it keeps their schedules too, as `archiver worker` does.
 */
export async function startDevWorker(
  policies?: readonly RetentionPolicy[],
): Promise<DevWorker | { reason: string }> {
  try {
    const [{ sharedRuntime }, { runWorker }] = await Promise.all([
      import("@table-archiver/core/runtime"),
      import("../worker/run-worker"),
    ]);
    const runtime = await sharedRuntime();
    const worker = await runWorker(runtime, policies ? { policies } : {});
    // Closing the worker leaves the shared runtime open: the mounted functions use it too.
    return { close: () => worker.close() };
  } catch (error) {
    return { reason: messageOf(error) };
  }
}
