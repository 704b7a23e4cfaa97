import type { Row } from "../../model/table-schema";
import { describeWarehouseContract } from "../../testing/warehouse-contract";
import { partitionId } from "./load-job";
import { decodeNdjsonRow } from "./testing/ndjson-decoder";
import { openStandInWarehouse, STAND_IN_PROJECT } from "./testing/stand-in-client";

// The shared warehouse contract suite, run against the in-memory BigQuery
// stand-in (memoryBigQuery): it applies each load job to rows it holds
// (WRITE_TRUNCATE of one partition, schema additions, rows outside the
// partition refused) and answers the adapter's queries over them; `readDay`
// decodes the NDJSON lines the adapter uploaded. So the adapter behaves as the
// DuckDB one does, and its encoding is complete and lossless. What the client
// library sends is the REST contract tests' concern; what BigQuery itself
// accepts and stores (its value checks, JSON normalisation, NUMERIC printing)
// only the live suite shows.

describeWarehouseContract("BigQuery adapter against the in-memory stand-in", async () => {
  const { standIn, warehouse, close } = await openStandInWarehouse();
  return {
    warehouse,
    async readDay({ destination, day }, schema) {
      const key = `${destination.project ?? STAND_IN_PROJECT}.${destination.dataset}.${destination.table}`;
      const stored = standIn.partitions.get(key)?.get(partitionId(day)) ?? [];
      return stored.map((row) => decodeNdjsonRow(row.line, schema)).sort(byFirstColumn);
    },
    cleanup: close,
  };
});

function byFirstColumn(a: Row, b: Row): number {
  const [x, y] = [BigInt(String(a[0])), BigInt(String(b[0]))];
  return x < y ? -1 : x > y ? 1 : 0;
}
