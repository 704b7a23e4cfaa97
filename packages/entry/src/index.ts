import type { CloudEvent } from "@google-cloud/functions-framework";
import * as functions from "@google-cloud/functions-framework";
import { sharedRuntime } from "@table-archiver/core/runtime";
import type { MessagePublishedData } from "./decode-pubsub-event";
import { createEntryHandler } from "./handle-entry-event";

export { encodePubSubData, type MessagePublishedData } from "./decode-pubsub-event";
export { createEntryHandler, type EntryEvent, type EntryOutcome } from "./handle-entry-event";

const handle = createEntryHandler(sharedRuntime);

functions.cloudEvent<MessagePublishedData>(
  "archiverEntry",
  async (event: CloudEvent<MessagePublishedData>) => {
    await handle(event);
  },
);
