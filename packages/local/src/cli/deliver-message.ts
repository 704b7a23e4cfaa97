import { randomUUID } from "node:crypto";
import type { Runtime } from "@table-archiver/core/runtime";
import { createEntryHandler, type EntryOutcome, encodePubSubData } from "@table-archiver/entry";

/**
 * Delivers a message to the entry function as Pub/Sub would: a CloudEvent
 * whose data carries the base64 JSON, its `time` and the message's
 * `publishTime` both `publishTime`. `archiver publish` publishes now; a
 * scheduled run passes its scheduled minute, so the entry function sees the
 * same time on a second delivery of that minute.
 */
export async function deliverMessage(
  runtime: Runtime,
  message: unknown,
  publishTime: Date = new Date(),
): Promise<EntryOutcome> {
  const deliver = createEntryHandler(async () => runtime);
  const id = randomUUID();
  return deliver({ id, time: publishTime.toISOString(), data: encodePubSubData(message, id, publishTime) });
}
