import { PassThrough } from "node:stream";
import type { Runtime } from "@table-archiver/core/runtime";
import { describe, expect, it } from "vitest";
import { WarehouseInUseError } from "../worker/hold-warehouse";
import type { CliIo } from "./cli-io";
import { createScreen } from "./progress-reporter";
import { workQueue } from "./worker-command";

describe("workQueue", () => {
  it("ends the progress bar with its line when the worker cannot start, so the error has a line of its own", async () => {
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    const written: string[] = [];
    stdout.on("data", (chunk) => written.push(String(chunk)));
    const io: CliIo = { env: {}, stdin: new PassThrough(), stdout, stderr: new PassThrough() };
    // Only what the worker touches before it takes a task: the queue's count and the warehouse.
    const runtime = {
      config: { warehouse: { kind: "duckdb", path: "/tmp/held.duckdb" } },
      queue: { count: async () => 2 },
      warehouse: async () => {
        throw new Error(
          'DuckDB open: IO Error: Could not set lock on file "/tmp/held.duckdb": Conflicting lock is held in /usr/bin/node (PID 4242). See also https://duckdb.org/docs/stable/connect/concurrency',
        );
      },
    } as unknown as Runtime;

    await expect(workQueue(runtime, { drain: true }, createScreen(io))).rejects.toBeInstanceOf(
      WarehouseInUseError,
    );
    await expect(workQueue(runtime, { drain: true }, createScreen(io))).rejects.toThrow(
      "DuckDB file /tmp/held.duckdb is in use by another process (PID 4242, /usr/bin/node)",
    );
    const output = written.join("");
    expect(output).toContain("0/2");
    expect(output.endsWith("\n")).toBe(true);
  });
});
