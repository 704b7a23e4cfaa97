import type { RunDeps } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { createRuntime } from "@table-archiver/core/runtime";
import { readPolicyFile, startSchedules } from "@table-archiver/local/worker";
import { benchLogger } from "./bench-table";

/**
 * For a bench that runs tasks without the worker (cleanup.ts): what an
 * unattended worker with ARCHIVER_POLICIES adds to them, the file's schedules
 * set in Redis and their queue worked (none should fire during the bench),
 * and the run history (`runs`, its live counts under `prefix`, its finished
 * run written to `warehouse`), which the bench starts its run in and counts
 * each task's end in.
 */
type Warehouse = Awaited<ReturnType<RunDeps["warehouse"]>>;

export async function benchScheduling(config: Config, file: string, warehouse: Warehouse, prefix: string) {
  const local = config.queue.kind === "local" ? config.queue : undefined;
  if (!local) throw new Error("the bench runs on the local queue");
  const runtime = await createRuntime({ ...config, queue: { ...local, prefix } }, { logger: benchLogger });
  const schedules = await startSchedules(runtime, await readPolicyFile(file), { prefix });
  return {
    runs: { ...runtime.runs, warehouse: async () => warehouse },
    async close() {
      await schedules.close();
      await runtime.close();
    },
  };
}
