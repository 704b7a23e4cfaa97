import { describe, expect, it } from "vitest";
import { createCliLogger } from "./cli-logger";
import type { Channel } from "./progress-reporter";

function logger(text: boolean, level: "debug" | "info" | "warn" | "error" = "info") {
  const printed: [Channel, string][] = [];
  return {
    log: createCliLogger({ level, text, print: (channel, line) => printed.push([channel, line]) }),
    printed,
  };
}

const retried = {
  code: "TRANSIENT",
  retry: true,
  kind: "copy",
  table: "orders",
  day: "2024-01-03",
  attempt: 1,
  maxAttempts: 5,
};

describe("the CLI's logger without a terminal", () => {
  it("writes the functions' JSON lines on stdout", () => {
    const { log, printed } = logger(false);
    log.info("copied day", { table: "orders", day: "2024-01-03", rows: 2740, durationMs: 41 });
    log.debug("not shown at info");
    expect(printed).toEqual([
      [
        "out",
        '{"severity":"INFO","message":"copied day","table":"orders","day":"2024-01-03","rows":2740,"durationMs":41}',
      ],
    ]);
  });

  it("leaves out what the CLI prints on stderr itself, and keeps retried attempts", () => {
    const { log, printed } = logger(false);
    log.error('message rejected: source_table: unknown field; did you mean "source_tables"?', {
      code: "INVALID_INPUT",
    });
    log.error("message failed; Pub/Sub will redeliver it", { code: "TRANSIENT" });
    log.error("task failed: gone", { ...retried, retry: false });
    log.error("task failed: lost connection", retried);
    expect(printed.map(([channel, line]) => [channel, JSON.parse(line).message])).toEqual([
      ["out", "task failed: lost connection"],
    ]);
  });
});

describe("the CLI's logger and a run that ended", () => {
  it("keeps the run's JSON line (metrics count on it) but leaves it off a terminal", () => {
    const run = { runId: "r1", table: "orders", mode: "cleanup", result: "partial", rows: 6, refused: 1 };
    const json = logger(false);
    json.log.info("run ended", run);
    expect(json.printed.map(([channel, line]) => [channel, JSON.parse(line)])).toEqual([
      ["out", { severity: "INFO", message: "run ended", ...run }],
    ]);
    const terminal = logger(true);
    terminal.log.info("run ended", run);
    expect(terminal.printed).toEqual([]);
  });
});

describe("the CLI's logger on a terminal", () => {
  it("says each day in a short line: progress on stdout, warnings on stderr", () => {
    const { log, printed } = logger(true);
    log.info("copied day", { table: "orders", day: "2024-01-03", rows: 2740, durationMs: 41.4, bytes: 9 });
    log.info("cleaned day", {
      table: "orders",
      day: "2024-01-03",
      rowsDeleted: 1,
      durationMs: 1200,
      resumed: true,
    });
    log.info("cleanup: day already-clean", { table: "orders", day: "2024-01-04" });
    log.info("cleanup dry run: day verified", { table: "orders", day: "2024-01-05", rowsToDelete: 12 });
    log.error("task failed: lost connection", retried);
    log.warn("filter column leads no index; planning and copying will scan the table", { table: "orders" });
    expect(printed).toEqual([
      ["out", "copied orders 2024-01-03: 2,740 rows in 41 ms"],
      ["out", "cleaned orders 2024-01-03: 1 row deleted in 1,200 ms (resumed)"],
      ["out", "cleanup orders 2024-01-04: no rows left to delete"],
      ["out", "verified orders 2024-01-05: 12 rows would be deleted"],
      ["err", "retrying orders 2024-01-03 (copy, attempt 1 of 5): lost connection"],
      [
        "err",
        "warning: filter column leads no index; planning and copying will scan the table (table orders)",
      ],
    ]);
  });

  it("leaves out what the accepted and refused lines already say", () => {
    const { log, printed } = logger(true);
    log.info("planned migration days", { table: "orders", days: 3 });
    log.info("cleanup queued", { table: "orders" });
    log.warn("cleanup refused day; its rows are kept", { table: "orders", day: "2024-01-03" });
    log.warn("cleanup dry run: day refused; its rows would be kept", { table: "orders", day: "2024-01-03" });
    log.error("task failed: figures differ", { ...retried, retry: false, code: "VERIFICATION_FAILED" });
    expect(printed).toEqual([]);
  });

  it("keeps to LOG_LEVEL", () => {
    const { log, printed } = logger(true, "warn");
    log.info("copied day", { table: "orders", day: "2024-01-03", rows: 1, durationMs: 1 });
    expect(printed).toEqual([]);
  });
});
