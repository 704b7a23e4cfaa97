import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors";
import { configEnvNames } from "./env-schema";
import { loadConfig } from "./load-config";

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("configuration was accepted");
}

describe("loadConfig", () => {
  it("runs on the embedded default with an empty environment", () => {
    const config = loadConfig({});
    expect(config.warehouse).toEqual({
      kind: "duckdb",
      path: ".data/warehouse.duckdb",
      dataset: "archive",
      memoryLimit: "32MB",
      threads: 1,
      checkpointThreshold: "256MB",
    });
    expect(config.queue.kind).toBe("local");
    expect(config.timeZone).toBe("UTC");
    expect(config.mysql.url).toBe("mysql://root@127.0.0.1:3306/archiver_demo");
  });

  it("reads DuckDB's settings and refuses a size DuckDB would not take", () => {
    const warehouse = loadConfig({
      DUCKDB_MEMORY_LIMIT: "1GiB",
      DUCKDB_THREADS: "2",
      DUCKDB_CHECKPOINT_THRESHOLD: "64MB",
    }).warehouse;
    expect(warehouse).toMatchObject({ memoryLimit: "1GiB", threads: 2, checkpointThreshold: "64MB" });
    expect(problems({ DUCKDB_MEMORY_LIMIT: "lots", DUCKDB_THREADS: "0" })).toMatch(
      /DUCKDB_MEMORY_LIMIT[\s\S]*DUCKDB_THREADS|DUCKDB_THREADS[\s\S]*DUCKDB_MEMORY_LIMIT/,
    );
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ WAREHOUSE_DATASET: "", ARCHIVER_TIMEZONE: "" }).warehouse.dataset).toBe("archive");
  });

  it("names every bad variable in one message", () => {
    const message = problems({
      MYSQL_URL: "postgres://x",
      ARCHIVER_TIMEZONE: "Mars/Olympus",
      COPY_BATCH_ROWS: "ten",
      WAREHOUSE: "bigquery",
    });
    for (const name of [
      "MYSQL_URL",
      "ARCHIVER_TIMEZONE",
      "COPY_BATCH_ROWS",
      "BIGQUERY_PROJECT",
      "BIGQUERY_LOCATION",
    ]) {
      expect(message).toContain(name);
    }
  });

  it("requires the BigQuery settings only for the BigQuery warehouse", () => {
    const config = loadConfig({
      WAREHOUSE: "bigquery",
      BIGQUERY_PROJECT: "acme-data",
      BIGQUERY_LOCATION: "EU",
    });
    expect(config.warehouse).toEqual({
      kind: "bigquery",
      project: "acme-data",
      location: "EU",
      dataset: "archive",
    });
  });

  it("names every Cloud Tasks variable that QUEUE=cloud-tasks lacks, in one message", () => {
    const message = problems({ QUEUE: "cloud-tasks", CLOUD_TASKS_LOCATION: "europe-west1" });
    expect(message).toContain("CLOUD_TASKS_PROJECT: required when QUEUE=cloud-tasks");
    expect(message).toContain("TASK_HANDLER_URL: required when QUEUE=cloud-tasks");
    expect(message).toContain("TASK_INVOKER_SERVICE_ACCOUNT: required when QUEUE=cloud-tasks");
    expect(message).not.toContain("CLOUD_TASKS_LOCATION");
  });

  it("accepts a complete Cloud Tasks configuration and leaves the local queue alone", () => {
    const config = loadConfig({
      QUEUE: "cloud-tasks",
      CLOUD_TASKS_PROJECT: "acme-prod",
      CLOUD_TASKS_LOCATION: "europe-west1",
      TASK_HANDLER_URL: "https://task-handler-abc-ew.a.run.app",
      TASK_INVOKER_SERVICE_ACCOUNT: "task-invoker@acme-prod.iam.gserviceaccount.com",
    });
    expect(config.queue.kind).toBe("cloud-tasks");
    expect(config.queue).toMatchObject({ dispatchDeadlineSeconds: 600 });
    expect(() => loadConfig({ TASK_HANDLER_URL: "https://x.example" })).not.toThrow();
    expect(problems({ QUEUE: "cloud-tasks", TASK_DISPATCH_DEADLINE_SECONDS: "1801" })).toContain(
      "TASK_DISPATCH_DEADLINE_SECONDS",
    );
  });

  it("takes a zone by IANA name", () => {
    expect(loadConfig({ ARCHIVER_TIMEZONE: "America/Mexico_City" }).timeZone).toBe("America/Mexico_City");
  });

  it("exposes the names it reads", () => {
    expect(configEnvNames).toContain("MYSQL_URL");
    expect(configEnvNames).toContain("ARCHIVER_TIMEZONE");
    expect(new Set(configEnvNames).size).toBe(configEnvNames.length);
  });
});
