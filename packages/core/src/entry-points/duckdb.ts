// Loads @duckdb/node-api on import: code that may not need DuckDB goes through createRuntime, which loads it on demand.
export * from "../adapters/duckdb/duckdb-warehouse";
export { DAY_RECORD_TABLE } from "../adapters/warehouse/day-record-rows";
