import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as functions from "@google-cloud/functions-framework";
import { getTestServer } from "@google-cloud/functions-framework/testing";
import { loadConfig } from "@table-archiver/core/config";
import { closeSharedRuntime, createRuntime, type Runtime } from "@table-archiver/core/runtime";
import {
  captureLogLines,
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { encodePubSubData } from "./decode-pubsub-event";
import { createEntryHandler } from "./handle-entry-event";

let db: TestDatabase;
let server: Server;
let base: string;
let observer: Runtime;
const prefix = uniqueName("entry");
const table = uniqueName("orders");

// The rejections these tests provoke are logged as the function logs them; kept here, out of the run's output.
const logs = captureLogLines();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  await db.connection.query(
    `INSERT INTO ${table} (created_at) VALUES ('2020-01-01 10:00:00'), ('2020-01-02 10:00:00'), ('2020-01-04 10:00:00')`,
  );
  const env = { MYSQL_URL: db.url, REDIS_URL: testRedisUrl, LOCAL_QUEUE_PREFIX: prefix, LOG_LEVEL: "error" };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  await import("./function");
  // The same handler on a MySQL that is down: the platform must see a failure and redeliver.
  const down = loadConfig({ ...env, MYSQL_URL: "mysql://root@127.0.0.1:1/nowhere" });
  functions.cloudEvent("archiverEntryMysqlDown", async (event: unknown) => {
    await createEntryHandler(() => createRuntime(down))(event as never);
  });
  observer = await createRuntime(loadConfig(env));
  server = getTestServer("archiverEntry").listen(0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  logs.restore();
  server?.close();
  await closeSharedRuntime();
  await observer?.close();
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  await db?.drop();
  vi.unstubAllEnvs();
});

/** Posts a Pub/Sub CloudEvent in binary content mode, as Eventarc delivers it. */
async function deliver(target: string, document: unknown): Promise<number> {
  const response = await fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "ce-id": uniqueName("event"),
      "ce-specversion": "1.0",
      "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
      "ce-source": "//pubsub.googleapis.com/projects/p/topics/archiver",
    },
    body: JSON.stringify(encodePubSubData(document)),
  });
  await response.arrayBuffer();
  return response.status;
}

const migration = (limit: number) => ({
  years_to_migrate: 1,
  months_to_migrate: 0,
  source_tables: [table],
  destination_tables: [`${table}_archive`],
  filter_columns: ["created_at"],
  tasks_enqueued_limit: limit,
});

describe("archiverEntry through the Functions Framework", () => {
  it("acknowledges a bad message and changes nothing", async () => {
    expect(await deliver(base, { ...migration(2), filter_columns: ["id"] })).toBeLessThan(300);
    expect(await deliver(base, { ...migration(2), surprise: true })).toBeLessThan(300);
    expect(await deliver(base, "not an object")).toBeLessThan(300);
    expect(await observer.queue.count()).toBe(0);
  });

  it("enqueues one task per day for a migration message", async () => {
    expect(await deliver(base, migration(2))).toBeLessThan(300);
    expect([...(await observer.queue.queuedDays("copy", table))].sort()).toEqual([
      "2020-01-01",
      "2020-01-02",
    ]);
    expect(await deliver(base, migration(2))).toBeLessThan(300);
    expect(await observer.queue.count()).toBe(3);
  });

  it("fails the delivery when MySQL is down so Pub/Sub redelivers", async () => {
    const downServer = getTestServer("archiverEntryMysqlDown").listen(0);
    try {
      const url = `http://127.0.0.1:${(downServer.address() as AddressInfo).port}`;
      expect(await deliver(url, migration(2))).toBeGreaterThanOrEqual(500);
    } finally {
      downServer.close();
    }
  });
});
