import { uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { redis, served, servedFunctions, waitUntil } from "./testing/served-functions";

// Real requests to each built function, served by the Functions Framework's CLI as the Cloud Functions
// runtime would; what each bundle holds and loads: build-function-bundles.e2e.test.ts.

beforeAll(servedFunctions.start, 120_000);
afterAll(servedFunctions.stop);

/** The entry function's JSON log line about the Pub/Sub message `eventId`. */
async function logLine(eventId: string): Promise<unknown> {
  const find = () =>
    served.entry
      .output()
      .split("\n")
      .find((line) => line.startsWith("{") && line.includes(`"eventId":"${eventId}"`));
  await waitUntil(
    () => find() !== undefined,
    () => served.entry.output(),
  );
  return JSON.parse(find() ?? "{}");
}

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

describe("entry (CloudEvent, Pub/Sub)", () => {
  test("acknowledges an invalid message pushed by our Pub/Sub subscription, naming the field", async () => {
    const table = uniqueName("bad");
    const response = await fetch(`${served.entry.url}/projects/bundle-test/topics/archiver-messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: {
          data: base64({ clean_table: table }),
          messageId: "m-1",
          publishTime: new Date().toISOString(),
        },
        subscription: "projects/bundle-test/subscriptions/archiver-messages-entry",
      }),
    });
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    expect(await logLine("m-1")).toMatchObject({
      severity: "ERROR",
      code: "INVALID_INPUT",
      field: "filter_column",
    });
  });

  test("acknowledges an invalid message delivered as Eventarc's binary CloudEvent", async () => {
    const response = await fetch(served.entry.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
        "ce-source": "//pubsub.googleapis.com/projects/bundle-test/topics/archiver-messages",
        "ce-id": "m-2",
      },
      body: JSON.stringify({ message: { data: base64("not a message"), messageId: "m-2" } }),
    });
    expect(response.status).toBeLessThan(300);
    expect(await logLine("m-2")).toMatchObject({ severity: "ERROR", code: "INVALID_INPUT" });
  });
});

describe("task handler (HTTP)", () => {
  test("answers 400 with the error body for a task that can never succeed", async () => {
    const response = await fetch(served.taskHandler.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "copy", table: "orders" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "INVALID_INPUT" } });
  });

  test("answers 405 to anything but POST", async () => {
    const response = await fetch(served.taskHandler.url);
    expect(response.status).toBe(405);
  });
});

describe("loadRedisData (HTTP)", () => {
  test("answers getSet with the members of a real Redis set", async () => {
    const key = `mig_${uniqueName("bundle")}`;
    await redis.sadd(key, "2021-01-03", "2021-01-01", "2021-01-02");
    try {
      const response = await fetch(served.reader.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ method: "getSet", data: key }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(["2021-01-01", "2021-01-02", "2021-01-03"]);
    } finally {
      await redis.del(key);
    }
  });

  test("refuses a key outside mig_*", async () => {
    const response = await fetch(served.reader.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "getSet", data: "transportitas" }),
    });
    expect(response.status).toBe(403);
  });
});
