// The entry function's code, without the Cloud Function: ./function.ts
// registers `archiverEntry`. Importing this barrel has no side effect.
export { encodePubSubData, type MessagePublishedData } from "./decode-pubsub-event";
export { createEntryHandler, type EntryEvent, type EntryOutcome } from "./handle-entry-event";
