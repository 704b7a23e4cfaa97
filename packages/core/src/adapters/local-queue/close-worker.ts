import type { Worker } from "bullmq";

/** With no task running, a close that takes longer than this is waiting for an unreachable Redis. */
const CLOSE_GRACE_MS = 3_000;

/**
 * Waits for BullMQ's graceful close (it lets running tasks finish), except that
 * BullMQ's close never returns while Redis is unreachable: once no task is
 * running and the close still hangs, the connections are dropped instead.
 */
export async function closeWorker(worker: Worker, running: () => number): Promise<void> {
  const closing = worker.close().then(
    () => true,
    () => true,
  );
  for (;;) {
    const timeout = new Promise<false>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS, false).unref());
    if (await Promise.race([closing, timeout])) return;
    if (running() === 0) {
      void worker.disconnect().catch(() => {});
      return;
    }
  }
}
