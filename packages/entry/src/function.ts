// The deployed Cloud Function: importing this file registers `archiverEntry`
// (a CloudEvent function for Pub/Sub) with the Functions Framework, the entry
// point infra names. scripts/build-function.ts bundles it (package.json
// "exports" "./function") as the bundle's index.js; the local server imports
// it to mount the function. Everything else imports the package's index.ts,
// which registers nothing and so does not load the Functions Framework.
import type { CloudEvent } from "@google-cloud/functions-framework";
import * as functions from "@google-cloud/functions-framework";
import { sharedRuntime } from "@table-archiver/core/runtime";
import type { MessagePublishedData } from "./decode-pubsub-event";
import { createEntryHandler } from "./handle-entry-event";

const handle = createEntryHandler(sharedRuntime);

functions.cloudEvent<MessagePublishedData>(
  "archiverEntry",
  async (event: CloudEvent<MessagePublishedData>) => {
    await handle(event);
  },
);
