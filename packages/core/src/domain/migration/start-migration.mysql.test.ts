import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { createTestRuntime, type TestRuntime } from "../../testing/test-runtime";
import { createTestDatabase, type TestDatabase, uniqueName } from "../../testing/test-services";
import type { MigrationMessage } from "../messages/migration-message";
import { parseMessage } from "../messages/parse-message";
import { startMigration } from "./start-migration";

// "Today" is 2026-11-21 (UTC); one year back makes the cutoff 2025-11-21.
const NOW = "2026-11-21T12:00:00Z";
let db: TestDatabase;
let t: TestRuntime;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  t = await createTestRuntime({ mysqlUrl: db.url, now: NOW });
});
afterEach(async () => {
  await t.close();
});

async function createEvents(rows: readonly string[], options: { indexed?: boolean } = {}): Promise<string> {
  const table = uniqueName("events");
  await db.connection.query(
    `CREATE TABLE ${table} (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(6) NULL,
     note VARCHAR(20), ${options.indexed === false ? "" : "KEY (created_at),"} updated DATE NULL, ts TIMESTAMP NULL)`,
  );
  if (rows.length > 0) {
    await db.connection.query(`INSERT INTO ${table} (created_at, note) VALUES ?`, [
      rows.map((r) => [r, "x"]),
    ]);
  }
  return table;
}

function message(tables: string[], extra: Partial<MigrationMessage> = {}): MigrationMessage {
  const parsed = parseMessage({
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: tables,
    destination_tables: tables.map((table) => `${table}_archive`),
    filter_columns: tables.map(() => "created_at"),
    ...extra,
  });
  if (parsed.mode !== "migration") throw new Error("not a migration message");
  return parsed.message;
}

/** Migration mode as the entry function runs it (the test runtime's zone is UTC). */
const deps = () => t.runtime.migration;

async function queued(table: string): Promise<string[]> {
  return [...(await t.runtime.queue.queuedDays("copy", table))].sort();
}

describe("startMigration planning", () => {
  it("enqueues the oldest days, at most the limit, and continues on the next run", async () => {
    const days = [
      "2025-01-01",
      "2025-01-02",
      "2025-01-05",
      "2025-02-01",
      "2025-03-10",
      "2025-03-11",
      "2025-11-20",
    ];
    const table = await createEvents(days.map((d) => `${d} 10:00:00`));

    const [first] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 3 }));
    expect(first?.days).toEqual(["2025-01-01", "2025-01-02", "2025-01-05"]);
    expect(first?.cutoff).toBe("2025-11-21");
    expect(await t.runtime.queue.count()).toBe(3);

    const [second] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 3 }));
    expect(second?.days).toEqual(["2025-02-01", "2025-03-10", "2025-03-11"]);

    const [third] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 3 }));
    expect(third?.days).toEqual(["2025-11-20"]);
    const [fourth] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 3 }));
    expect(fourth?.days).toEqual([]);
    expect(await queued(table)).toEqual(days);
  });

  it("never plans the cutoff day and takes the whole last day before it", async () => {
    const table = await createEvents([
      "2025-11-20 23:59:59.999999",
      "2025-11-21 00:00:00",
      "2026-01-01 00:00:00",
    ]);
    const [plan] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 100 }));
    expect(plan?.days).toEqual(["2025-11-20"]);
  });

  it("skips days already in mig_<table>", async () => {
    const table = await createEvents(["2025-01-01 01:00:00", "2025-01-02 01:00:00", "2025-01-03 01:00:00"]);
    await t.runtime.storeLedger.recordCopiedDay(table, {
      day: "2025-01-02",
      destination: `${table}_archive`,
      filterColumn: "created_at",
      figures: { rows: 1 },
      zeroDates: 0,
      bytes: 0,
      durationMs: 1,
      copiedAt: NOW,
    });
    const [plan] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 10 }));
    expect(plan?.days).toEqual(["2025-01-01", "2025-01-03"]);
  });

  it("selects whole days from the day of min_date_limit_iso on", async () => {
    const table = await createEvents(["2025-03-01 23:00:00", "2025-03-02 00:00:00", "2025-03-03 12:00:00"]);
    const [plan] = await startMigration(
      deps(),
      message([table], { min_date_limit_iso: "2025-03-02T18:30:00", tasks_enqueued_limit: 10 }),
    );
    expect(plan?.days).toEqual(["2025-03-02", "2025-03-03"]);
  });

  it("ignores rows whose filter column is NULL and does not count empty days", async () => {
    const table = await createEvents(["2024-06-01 00:00:00", "2024-12-31 12:00:00"]);
    await db.connection.query(`INSERT INTO ${table} (created_at) VALUES (NULL)`);
    const [plan] = await startMigration(deps(), message([table], { tasks_enqueued_limit: 2 }));
    expect(plan?.days).toEqual(["2024-06-01", "2024-12-31"]);
  });

  it("plans nothing for an empty table", async () => {
    const table = await createEvents([]);
    const [plan] = await startMigration(deps(), message([table]));
    expect(plan?.days).toEqual([]);
    expect(await t.runtime.queue.count()).toBe(0);
  });

  it("plans several tables in one message, each with its own limit", async () => {
    const a = await createEvents(["2025-01-01 01:00:00", "2025-01-02 01:00:00", "2025-01-03 01:00:00"]);
    const b = await createEvents(["2024-05-05 05:00:00", "2024-05-07 05:00:00"]);
    const plans = await startMigration(deps(), message([a, b], { tasks_enqueued_limit: 2 }));
    expect(plans.map((p) => [p.table, p.days])).toEqual([
      [a, ["2025-01-01", "2025-01-02"]],
      [b, ["2024-05-05", "2024-05-07"]],
    ]);
    expect(await t.runtime.queue.count()).toBe(4);
  });

  it("warns when the filter column leads no index", async () => {
    const table = await createEvents(["2025-01-01 01:00:00"], { indexed: false });
    await startMigration(deps(), message([table]));
    expect(t.logs.some((l) => l.severity === "WARNING" && l.table === table && /index/.test(l.message))).toBe(
      true,
    );
  });
});

describe("startMigration validation against the database", () => {
  async function rejected(msg: MigrationMessage): Promise<InvalidInputError> {
    const error = await startMigration(deps(), msg).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }

  it.each([
    ["a missing table", (good: string) => ({ source_tables: [good, "no_such_table"] }), "source_tables[1]"],
    ["a missing column", () => ({ filter_columns: ["created_at", "nope"] }), "filter_columns[1]"],
    ["a DATE column", () => ({ filter_columns: ["created_at", "updated"] }), "filter_columns[1]"],
    ["a TIMESTAMP column", () => ({ filter_columns: ["created_at", "ts"] }), "filter_columns[1]"],
    ["a VARCHAR column", () => ({ filter_columns: ["created_at", "note"] }), "filter_columns[1]"],
    ["a bad destination", () => ({ destination_tables: ["ok", "bad-name!"] }), "destination_tables[1]"],
    [
      "a destination with a project on DuckDB",
      () => ({ destination_tables: ["ok", "my-project.ds.t"] }),
      "destination_tables[1]",
    ],
    [
      "an injection attempt",
      (good: string) => ({ source_tables: [good, "x`; DROP TABLE y; --"] }),
      "source_tables[1]",
    ],
  ])("rejects %s, names the field and enqueues nothing for any table", async (_case, change, field) => {
    const good = await createEvents(["2025-01-01 01:00:00"]);
    const other = await createEvents(["2025-01-01 01:00:00"]);
    const base = message([good, other]);
    const error = await rejected({ ...base, ...change(good) } as MigrationMessage);
    expect(error.field).toBe(field);
    expect(await t.runtime.queue.count()).toBe(0);
    expect(await t.runtime.storeLedger.migratedDays(good)).toEqual([]);
  });

  it("names the column's real type", async () => {
    const table = await createEvents([]);
    const error = await rejected({ ...message([table]), filter_columns: ["updated"] });
    expect(error.message).toContain("DATE");
  });
});
