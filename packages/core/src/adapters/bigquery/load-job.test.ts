import { describe, expect, it } from "vitest";
import { dayFiguresQuery, parseDayFigures } from "./bigquery-queries";
import { loadJobMetadata, partitionId, partitionTableId } from "./load-job";

describe("partitions", () => {
  it("name a day's partition with the decorator BigQuery expects", () => {
    expect(partitionId("2024-02-29")).toBe("20240229");
    expect(partitionTableId("orders", "1999-12-31")).toBe("orders$19991231");
  });
});

describe("loadJobMetadata", () => {
  const fields = [
    { name: "id", type: "INTEGER", mode: "NULLABLE" },
    { name: "created_at", type: "DATETIME", mode: "NULLABLE" },
  ];

  it("replaces the partition with newline-delimited JSON, refusing any bad record", () => {
    const metadata = loadJobMetadata({
      table: "orders",
      fields,
      filterColumn: "created_at",
      day: "2024-01-31",
    });
    expect(metadata).toEqual({
      sourceFormat: "NEWLINE_DELIMITED_JSON",
      writeDisposition: "WRITE_TRUNCATE",
      createDisposition: "CREATE_NEVER",
      schema: { fields },
      schemaUpdateOptions: ["ALLOW_FIELD_ADDITION"],
      timePartitioning: { type: "DAY", field: "created_at" },
      maxBadRecords: 0,
      ignoreUnknownValues: false,
      encoding: "UTF-8",
      jobPrefix: "archiver_orders_20240131_",
    });
  });

  it("copies the fields so the client library cannot change the caller's schema", () => {
    const metadata = loadJobMetadata({
      table: "orders",
      fields,
      filterColumn: "created_at",
      day: "2024-01-31",
    });
    expect(metadata.schema?.fields?.[0]).not.toBe(fields[0]);
  });
});

describe("dayFiguresQuery", () => {
  it("counts the day through a range on the partitioning column, bound as DATETIME", () => {
    const sql = dayFiguresQuery(
      { destination: { dataset: "archive", table: "orders" }, filterColumn: "created_at", day: "2024-02-29" },
      "acme",
    );
    expect(sql.query).toBe(
      "SELECT CAST(COUNT(*) AS STRING) AS row_count FROM `acme.archive.orders` WHERE `created_at` >= @day_start AND `created_at` < @next_day_start",
    );
    expect(sql.params).toEqual({ day_start: "2024-02-29 00:00:00", next_day_start: "2024-03-01 00:00:00" });
    expect(sql.types).toEqual({ day_start: "DATETIME", next_day_start: "DATETIME" });
  });

  it("adds key figures, summing as BIGNUMERIC, in the destination's own project", () => {
    const sql = dayFiguresQuery(
      {
        destination: { project: "other-proj", dataset: "d", table: "t" },
        filterColumn: "ts",
        day: "2023-12-31",
      },
      "acme",
      "id",
    );
    expect(sql.query).toContain("FROM `other-proj.d.t`");
    expect(sql.query).toContain("CAST(COALESCE(SUM(CAST(`id` AS BIGNUMERIC)), 0) AS STRING) AS key_sum");
    expect(sql.query).toContain("CAST(MIN(`id`) AS STRING) AS key_min");
    expect(sql.params.next_day_start).toBe("2024-01-01 00:00:00");
  });
});

describe("parseDayFigures", () => {
  it("reads the text figures", () => {
    const row = {
      row_count: "3",
      key_count: "3",
      key_sum: "36893488147419103230",
      key_min: "1",
      key_max: "18446744073709551615",
    };
    expect(parseDayFigures(row, "id")).toEqual({
      rows: 3,
      key: { column: "id", count: 3, sum: "36893488147419103230", min: "1", max: "18446744073709551615" },
    });
  });

  it("reads an empty day as the source adapter writes it (sum 0, no min or max)", () => {
    const row = { row_count: "0", key_count: "0", key_sum: "0", key_min: null, key_max: null };
    expect(parseDayFigures(row, "id")).toEqual({
      rows: 0,
      key: { column: "id", count: 0, sum: "0", min: "", max: "" },
    });
    expect(parseDayFigures({ row_count: "0" })).toEqual({ rows: 0 });
  });
});
