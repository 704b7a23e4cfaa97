export * from "../adapters/bigquery/testing/rest-stand-in";
export * from "../adapters/bigquery/testing/stand-in-client";
