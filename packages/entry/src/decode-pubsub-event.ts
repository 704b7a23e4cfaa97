import { InvalidInputError, refuseOversizedMessage } from "@table-archiver/core";

/** The `data` of a Pub/Sub CloudEvent (google.cloud.pubsub.topic.v1.messagePublished). */
export interface MessagePublishedData {
  readonly message?: {
    readonly data?: string;
    readonly messageId?: string;
    readonly attributes?: unknown;
    /** When Pub/Sub accepted the message (RFC 3339). */
    readonly publishTime?: string;
  };
  readonly subscription?: string;
}

/** The JSON document carried base64-encoded in `message.data`, at most MAX_MESSAGE_BYTES of it. */
export function decodePubSubEvent(data: MessagePublishedData | undefined): unknown {
  const encoded = data?.message?.data;
  if (typeof encoded !== "string" || encoded.length === 0) {
    throw new InvalidInputError("message.data", "is missing: the Pub/Sub message carries no data");
  }
  const bytes = Buffer.from(encoded, "base64");
  // Judged before the text is parsed: parsing and validating take time and memory in proportion to its size.
  refuseOversizedMessage(bytes.length);
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError("message.data", "is not valid JSON", { cause: error });
  }
}

/**
 * Wraps a JSON document the way Pub/Sub delivers it, for publishers and tests.
 * `publishTime` is when it was published: a scheduled run passes its scheduled
 * minute, so two deliveries of that minute carry the same time.
 */
export function encodePubSubData(
  document: unknown,
  messageId = "local",
  publishTime: Date = new Date(),
): MessagePublishedData {
  const data = Buffer.from(typeof document === "string" ? document : JSON.stringify(document)).toString(
    "base64",
  );
  return { message: { data, messageId, publishTime: publishTime.toISOString() }, subscription: "local" };
}
