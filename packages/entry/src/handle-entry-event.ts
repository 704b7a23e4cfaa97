import {
  archiverErrorCode,
  type CleanupSummary,
  isFinalTaskError,
  isRepeatedDelivery,
  messageOf,
  parseMessage,
  startCleanupRun,
  startMigrationRuns,
  type TablePlan,
} from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import { decodePubSubEvent, type MessagePublishedData } from "./decode-pubsub-event";

export interface EntryEvent {
  readonly id?: string;
  /** The CloudEvent's `time` (RFC 3339): when the message was published, for a schedule its scheduled minute. */
  readonly time?: string;
  readonly data?: MessagePublishedData;
}

export type EntryOutcome =
  | { readonly outcome: "migration"; readonly plans: readonly TablePlan[] }
  | { readonly outcome: "cleanup"; readonly summary: CleanupSummary }
  /** A second delivery of a scheduled run (same policy, mode and scheduled minute): nothing was done. */
  | { readonly outcome: "duplicate"; readonly policy: string }
  | { readonly outcome: "rejected"; readonly error: { code: string; field?: string; message: string } };

/**
 * The entry function's logic. Invalid input and verification failures are
 * logged and acknowledged (redelivery could never fix them); anything else,
 * such as MySQL or Redis being down, is thrown so Pub/Sub redelivers.
 */
export function createEntryHandler(getRuntime: () => Promise<Runtime>) {
  return async (event: EntryEvent): Promise<EntryOutcome> => {
    const runtime = await getRuntime();
    try {
      const parsed = parseMessage(decodePubSubEvent(event.data));
      const { policy } = parsed.message;
      const publishedAt = new Date(event.time ?? event.data?.message?.publishTime ?? Date.now());
      const run = {
        policy,
        mode: parsed.mode,
        publishedAt: Number.isNaN(publishedAt.getTime()) ? new Date() : publishedAt,
      };
      if (policy !== undefined && (await isRepeatedDelivery(runtime, run)))
        return { outcome: "duplicate", policy };
      if (parsed.mode === "migration") {
        const plans = await startMigrationRuns(runtime.migration, runtime.runs, parsed.message);
        return { outcome: "migration", plans };
      }
      return {
        outcome: "cleanup",
        summary: await startCleanupRun(runtime.cleanup, runtime.runs, parsed.message),
      };
    } catch (error) {
      // Judged by code, not class, so an error from another copy of the core counts the same.
      if (isFinalTaskError(error)) {
        const { field } = error as { field?: string };
        const rejected = { code: archiverErrorCode(error), field, message: messageOf(error) };
        runtime.logger.error(`message rejected: ${rejected.message}`, { eventId: event.id, ...rejected });
        return { outcome: "rejected", error: rejected };
      }
      runtime.logger.error("message failed; Pub/Sub will redeliver it", {
        eventId: event.id,
        code: archiverErrorCode(error),
        error,
      });
      throw error;
    }
  };
}
