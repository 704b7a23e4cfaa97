import { BigQuery } from "@google-cloud/bigquery";
import type { Warehouse } from "../../ports/warehouse";
import { describeWarehouseContract } from "../../testing/warehouse-contract";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { describeSkipped, googleLiveProject, NO_GOOGLE_CREDENTIALS } from "./testing/google-live";
import { liveReadDay } from "./testing/live-read-day";

// The shared warehouse contract suite against real BigQuery. Runs when
// GOOGLE_CLOUD_PROJECT and credentials are set (`pnpm test:live`); datasets it
// creates are deleted afterwards. BIGQUERY_LOCATION picks the location (US).

const project = googleLiveProject();

if (project) {
  const location = process.env.BIGQUERY_LOCATION ?? "US";
  describeWarehouseContract(`BigQuery (live, project ${project}, ${location})`, async () => {
    const client = new BigQuery({ projectId: project, location });
    const datasets = new Set<string>();
    const inner = createBigQueryWarehouse({ project, location, client });
    // Records every dataset the suite touches, so cleanup removes exactly those.
    const warehouse: Warehouse = {
      ensureTable(destination, schema, filterColumn) {
        datasets.add(destination.dataset);
        return inner.ensureTable(destination, schema, filterColumn);
      },
      replaceDay(at, schema, batches, keyColumn, record) {
        datasets.add(at.destination.dataset);
        return inner.replaceDay(at, schema, batches, keyColumn, record);
      },
      dayFigures: (at, keyColumn) => inner.dayFigures(at, keyColumn),
      daysFigures: (at, keyColumn) => inner.daysFigures(at, keyColumn),
      dayKeys: (at, keyColumn, pageKeys) => inner.dayKeys(at, keyColumn, pageKeys),
      recordDay(dataset, entry) {
        datasets.add(dataset.dataset);
        return inner.recordDay(dataset, entry);
      },
      dayRecord: (dataset, table, day) => inner.dayRecord(dataset, table, day),
      recordedCopies: (dataset, table) => inner.recordedCopies(dataset, table),
      recordedTables: (dataset) => inner.recordedTables(dataset),
      recordRun(dataset, run) {
        datasets.add(dataset.dataset);
        return inner.recordRun(dataset, run);
      },
      runs: (dataset, options) => inner.runs(dataset, options),
      hasTable: (destination) => inner.hasTable(destination),
      countRows: (destination) => inner.countRows(destination),
      close: () => inner.close(),
    };
    return {
      warehouse,
      readDay: (at, schema) => liveReadDay(client, project, at, schema),
      async cleanup() {
        await Promise.allSettled([...datasets].map((id) => client.dataset(id).delete({ force: true })));
        await warehouse.close();
      },
    };
  });
} else {
  describeSkipped("BigQuery warehouse (live)", NO_GOOGLE_CREDENTIALS);
}
