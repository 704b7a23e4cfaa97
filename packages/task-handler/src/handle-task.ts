import {
  type CopiedDayRecord,
  cleanDay,
  copyDay,
  type DayCleanupReport,
  InvalidInputError,
  parseTaskPayload,
  type Runtime,
  type TaskPayload,
  VerificationError,
} from "@table-archiver/core";

export type TaskResult =
  | { readonly kind: "copy"; readonly task: TaskPayload; readonly record: CopiedDayRecord }
  | { readonly kind: "clean"; readonly task: TaskPayload; readonly report: DayCleanupReport };

/**
 * Runs one queued task. Used by the HTTP function and by the local worker, so
 * both run the same code. A task that can never succeed (InvalidInputError)
 * or whose figures disagree (VerificationError) is settled and rethrown;
 * anything else is rethrown for the queue to retry.
 */
export async function handleTask(runtime: Runtime, body: unknown): Promise<TaskResult> {
  const task = parseTaskPayload(body);
  try {
    const result = await run(runtime, task);
    await runtime.queue.settle(task);
    return result;
  } catch (error) {
    if (error instanceof InvalidInputError || error instanceof VerificationError) {
      await runtime.queue.settle(task);
    }
    throw error;
  }
}

async function run(runtime: Runtime, task: TaskPayload): Promise<TaskResult> {
  if (task.kind === "copy") {
    const record = await copyDay(
      {
        source: runtime.source,
        warehouse: await runtime.warehouse(),
        ledger: runtime.ledger,
        logger: runtime.logger,
        clock: runtime.clock,
        timeZone: runtime.config.timeZone,
        destinations: runtime.destinations,
        batchRows: runtime.config.copyBatchRows,
      },
      task,
    );
    return { kind: "copy", task, record };
  }
  return { kind: "clean", task, report: await cleanDay(runtime.cleanup, task) };
}
