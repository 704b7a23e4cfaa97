import type { DayCleanup, VerifiedDay } from "../../model/day-cleanup";
import type { TableDay } from "../../model/table-day";
import type { CleanupState } from "../../ports/cleanup-state";
import { type DurableRecordDeps, datasetOf } from "./durable-day-record";

/**
 * The cleanup state as cleanup tasks use it: the store's (Redis), and, for a
 * day planned in several chunks, a `cleanup-started` entry in the durable day
 * record of the warehouse the day was copied to, written as the day is
 * verified and read back by `resumeLost` once the store has lost the day.
 * A day deleted in several transactions is, part way, a day its copy record
 * no longer describes: without the plan kept here, losing Redis would leave
 * the rest of the day refused for good. A day of one chunk needs no entry: it
 * is either whole or gone. So the domain never reads or writes the durable
 * record of a cleanup itself, as withDurableRecord keeps it from restoring
 * copy records.
 */
export function withDurableCleanup(
  state: CleanupState,
  deps: Pick<DurableRecordDeps, "warehouse" | "destinations" | "logger">,
): CleanupState {
  return {
    ...state,

    async markVerified(at, verified) {
      await state.markVerified(at, verified);
      const { figures, plan, verifiedAt, copy } = verified;
      if (!copy || plan.kind !== "chunks" || plan.chunks.length < 2) return;
      const warehouse = await deps.warehouse();
      await warehouse.recordDay(datasetOf(deps.destinations, copy.destination), {
        kind: "cleanup-started",
        table: at.table,
        day: at.day,
        cleanup: { figures, plan, verifiedAt, copiedAt: copy.copiedAt },
      });
    },

    /**
     * Only a cleanup verified against this very copy (same `copiedAt`) is
     * taken up: its plan still describes the rows to delete. Chunks already
     * deleted are then found gone; every other chunk is deleted only if, under
     * its locks, its rows are still exactly the planned ones.
     */
    async resumeLost(at, copy) {
      const warehouse = await deps.warehouse();
      const { cleanup } = await warehouse.dayRecord(
        datasetOf(deps.destinations, copy.destination),
        at.table,
        at.day,
      );
      if (cleanup?.copiedAt !== copy.copiedAt) return undefined;
      deps.logger.warn(
        "cleanup: resuming a day whose cleanup had started, from the warehouse's durable record",
        {
          ...at,
          verifiedAt: cleanup.verifiedAt,
        },
      );
      return beginDeleting(state, at, cleanup);
    },
  };
}

/**
 * Records a verified day `verified`, then `deleting`, and answers the state
 * now in force: nothing deleted yet, the plan to delete by.
 */
export async function beginDeleting(
  state: CleanupState,
  at: TableDay,
  verified: VerifiedDay,
): Promise<DayCleanup> {
  await state.markVerified(at, verified);
  await state.markDeleting(at);
  const { figures, plan, verifiedAt } = verified;
  return { status: "deleting", figures, plan, verifiedAt, chunksDone: 0, rowsDeleted: 0 };
}
