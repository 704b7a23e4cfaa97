import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError, TransientError } from "../../errors";
import { describe_, source, sourceTables } from "../../testing/mysql-source-tables";
import { createMysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";

beforeAll(sourceTables.create);
afterAll(sourceTables.drop);

describe("errors", () => {
  it("refuses a filter column the schema does not have", async () => {
    const events = await describe_("events");
    expect(() => source.streamDay(events, "nope", "2024-01-01", 10)).toThrow(InvalidInputError);
    await expect(source.dayFigures(events, "nope", "2024-01-01")).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("reports an unreachable server as transient", async () => {
    const unreachable = createMysqlSourceDatabase(
      createMysqlPool(
        { url: "mysql://root@127.0.0.1:1/none", password: undefined },
        { connectTimeout: 2000 },
      ),
    );
    try {
      await expect(unreachable.describeTable("events")).rejects.toBeInstanceOf(TransientError);
      await expect(
        unreachable.firstDayWithRows("events", "at", "2024-01-01", "2024-02-01"),
      ).rejects.toBeInstanceOf(TransientError);
      const events = await describe_("events");
      await expect(unreachable.dayFigures(events, "at", "2024-01-01")).rejects.toBeInstanceOf(TransientError);
      const stream = unreachable.streamDay(events, "at", "2024-01-01", 10);
      await expect(stream.batches[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TransientError);
    } finally {
      await unreachable.close();
    }
  });
});
