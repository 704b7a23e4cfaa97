import { describe, expect, it } from "vitest";
import { partitioningOf, upperBound } from "./partition-bounds";

const row = (
  name: string | null,
  method: string | null,
  expression: string | null,
  description: string | null,
) => ({
  name,
  subpartition: null,
  method,
  expression,
  description,
});

describe("partition bounds, as information_schema.PARTITIONS prints them", () => {
  it("turns each range function's bound into the first instant the partition no longer holds", () => {
    expect(upperBound("TO_DAYS", "739282")).toBe("2024-02-01 00:00:00");
    expect(upperBound("TO_SECONDS", "63871372800")).toBe("2024-01-02 00:00:00");
    expect(upperBound("TO_SECONDS", "63871416000")).toBe("2024-01-02 12:00:00");
    expect(upperBound("YEAR", "2025")).toBe("2025-01-01 00:00:00");
    expect(upperBound("COLUMNS", "'2024-01-02'")).toBe("2024-01-02 00:00:00");
    expect(upperBound("COLUMNS", "'2024-01-03 06:30:00.500000'")).toBe("2024-01-03 06:30:00.500000");
    expect(upperBound("TO_DAYS", "MAXVALUE")).toBeUndefined();
    expect(upperBound("TO_DAYS", "to_days('2024-01-01')")).toBeNull();
  });

  it("reads RANGE on TO_DAYS of a column, and RANGE COLUMNS of one column", () => {
    expect(
      partitioningOf([
        row("p1", "RANGE", "to_days(`created_at`)", "739282"),
        row("pmax", "RANGE", "to_days(`created_at`)", "MAXVALUE"),
      ]),
    ).toEqual({
      kind: "range",
      column: "created_at",
      partitions: [
        { name: "p1", below: "2024-02-01 00:00:00" },
        { name: "pmax", below: undefined },
      ],
    });
    expect(partitioningOf([row("d1", "RANGE COLUMNS", "`made``at`", "'2024-01-02'")])).toMatchObject({
      kind: "range",
      column: "made`at",
    });
  });

  it("describes every other partitioning, and a table without any", () => {
    expect(partitioningOf([row(null, null, null, null)])).toEqual({ kind: "none" });
    expect(partitioningOf([row("p0", "HASH", "`id`", null)])).toEqual({
      kind: "other",
      description: "PARTITION BY HASH (`id`)",
    });
    expect(partitioningOf([row("p0", "RANGE", "`id` DIV 10", "5")])).toMatchObject({ kind: "other" });
    expect(partitioningOf([row("p0", "RANGE COLUMNS", "`a`,`b`", "'x','y'")])).toMatchObject({
      kind: "other",
    });
    expect(
      partitioningOf([{ ...row("p1", "RANGE", "to_days(`created_at`)", "739282"), subpartition: "p1sp0" }]),
    ).toEqual({
      kind: "other",
      description: "PARTITION BY RANGE (to_days(`created_at`)) with subpartitions",
    });
  });
});

describe("the twin's definition", () => {
  it("is the table's own, renamed, without its partitioning, as MariaDB and MySQL print it", async () => {
    const { twinDefinition } = await import("./mysql-partitioned-table");
    const mariadb =
      "CREATE TABLE `events` (\n  `id` int NOT NULL,\n  `note` varchar(9) DEFAULT 'PARTITION BY ' COMMENT 'x',\n" +
      "  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4\n PARTITION BY RANGE (`id`)\n(PARTITION `p0` VALUES LESS THAN (9) ENGINE = InnoDB)";
    expect(twinDefinition(mariadb, "`twin`")).toBe(
      "CREATE TABLE `twin` (\n  `id` int NOT NULL,\n  `note` varchar(9) DEFAULT 'PARTITION BY ' COMMENT 'x',\n" +
        "  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    );
    const mysql =
      "CREATE TABLE `e``v` (\n  `id` int\n) ENGINE=InnoDB\n/*!50100 PARTITION BY RANGE (`id`)\n(PARTITION p0 VALUES LESS THAN (9)) */";
    expect(twinDefinition(mysql, "`twin`")).toBe("CREATE TABLE `twin` (\n  `id` int\n) ENGINE=InnoDB");
    expect(() => twinDefinition("CREATE TABLE `t` (`id` int)", "`twin`")).toThrow(
      /cannot read the table's definition/,
    );
  });
});
