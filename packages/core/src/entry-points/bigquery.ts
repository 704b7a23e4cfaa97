// Loads @google-cloud/bigquery on import: code that may not need BigQuery goes through createRuntime, which loads it on demand.
export * from "../adapters/bigquery/bigquery-warehouse";
