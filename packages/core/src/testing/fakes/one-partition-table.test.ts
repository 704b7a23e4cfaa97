import type { PartitionedTable } from "../../ports/partitioned-table";
import { CONTRACT_BELOW, describePartitionedTableContract } from "../partitioned-table-contract";
import { createMemorySource } from "./memory-source";
import { createOnePartitionTable } from "./one-partition-table";

describePartitionedTableContract("in memory", async () => {
  const source = createMemorySource();
  // The fake sees one table as partitioned: each table the suite creates gets its own.
  let partitions: PartitionedTable | undefined;
  return {
    get partitions() {
      if (!partitions) throw new Error("no partitioned table created yet");
      return partitions;
    },
    source,
    async createTable({ schema, rows }) {
      source.createTable(schema, rows);
      partitions = createOnePartitionTable(source, {
        table: schema.name,
        column: "created_at",
        below: CONTRACT_BELOW,
      });
    },
    async createUnpartitionedTable({ schema, rows }) {
      source.createTable(schema, rows);
    },
    async insertRows(table, rows) {
      source.insertRows(table, rows);
    },
    cleanup: () => source.close(),
  };
});
