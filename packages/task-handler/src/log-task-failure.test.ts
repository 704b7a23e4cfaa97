import { RefusalError, type TaskPayload, TransientError } from "@table-archiver/core";
import { createJsonLogger } from "@table-archiver/core/logging";
import type { Runtime } from "@table-archiver/core/runtime";
import { describe, expect, it } from "vitest";
import { logTaskFailure, taskErrorInfo } from "./log-task-failure";
import { createTaskHttpHandler } from "./task-http-handler";

const task: TaskPayload = { kind: "clean", table: "orders", filterColumn: "created_at", day: "2020-01-03" };

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createJsonLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("logTaskFailure", () => {
  it("writes one line: the message, code, reason, retry, the task's kind, table and day, the attempt", () => {
    const { logger, lines } = capture();
    const error = new RefusalError("orders 2020-01-03: the source changed since the copy", {
      reason: "changed",
    });
    logTaskFailure(logger, { error, retry: false, task, attempt: 1, maxAttempts: 5, fields: { jobId: "7" } });
    expect(lines).toEqual([
      {
        severity: "ERROR",
        message: "task failed: orders 2020-01-03: the source changed since the copy",
        code: "VERIFICATION_FAILED",
        reason: "changed",
        retry: false,
        kind: "clean",
        table: "orders",
        day: "2020-01-03",
        attempt: 1,
        maxAttempts: 5,
        jobId: "7",
      },
    ]);
  });

  it("judges a copy of an error by its code and reason, not its class", () => {
    const { logger, lines } = capture();
    const copy = Object.assign(new Error("rows of another table reference the day"), {
      code: "VERIFICATION_FAILED",
      reason: "foreign-key",
    });
    logTaskFailure(logger, { error: copy, retry: false, task });
    expect(lines[0]).toMatchObject({ code: "VERIFICATION_FAILED", reason: "foreign-key", retry: false });
    expect(taskErrorInfo(copy)).toEqual({
      code: "VERIFICATION_FAILED",
      reason: "foreign-key",
      message: "rows of another table reference the day",
    });
  });

  it("says INTERNAL for an error of no known code, and leaves out what it does not know", () => {
    const { logger, lines } = capture();
    logTaskFailure(logger, {
      error: Object.assign(new Error("boom"), { code: "ER_LOCK_DEADLOCK" }),
      retry: true,
    });
    expect(lines).toEqual([
      { severity: "ERROR", message: "task failed: boom", code: "INTERNAL", retry: true },
    ]);
  });

  it("keeps the runner's own fields, which never replace the common ones", () => {
    const { logger, lines } = capture();
    logTaskFailure(logger, {
      error: new TransientError("mysql is down"),
      retry: true,
      task,
      fields: { retry: false, code: "X", taskName: "t1", body: { any: 1 } },
    });
    expect(lines[0]).toMatchObject({ code: "TRANSIENT", retry: true, taskName: "t1", body: { any: 1 } });
  });
});

describe("the HTTP task handler's failure line", () => {
  /** A runtime whose copy reads the ledger first, and the ledger fails with `error`. */
  function failingRuntime(error: Error) {
    const { logger, lines } = capture();
    const runtime = {
      logger,
      // The queue's attempts unknown: no attempt is taken for the last.
      config: { taskMaxAttempts: undefined },
      queue: { settle: async () => {} },
      copy: {
        clock: () => new Date("2024-06-01T00:00:00Z"),
        timeZone: "UTC",
        ledger: {
          copiedDay: async () => {
            throw error;
          },
        },
      },
    } as unknown as Runtime;
    return { runtime, lines };
  }

  async function post(runtime: Runtime, body: unknown, headers: Record<string, string> = {}) {
    let status = 0;
    const res = {
      status(code: number) {
        status = code;
        return res;
      },
      json() {},
    };
    await createTaskHttpHandler(async () => runtime)({ method: "POST", headers, body }, res);
    return status;
  }

  const copy = { kind: "copy", table: "orders", destination: "orders_archive", filterColumn: "created_at" };

  it("is logTaskFailure's line, with the Cloud Tasks fields and the body kept", async () => {
    const { runtime, lines } = failingRuntime(new TransientError("redis is unreachable"));
    const body = { ...copy, day: "2020-01-02" };
    const status = await post(runtime, body, {
      "x-cloudtasks-taskname": "t1",
      "x-cloudtasks-queuename": "jobs-migration",
      "x-cloudtasks-taskretrycount": "2",
    });
    expect(status).toBe(503);
    expect(lines).toEqual([
      {
        severity: "ERROR",
        message: "task failed: redis is unreachable",
        code: "TRANSIENT",
        retry: true,
        kind: "copy",
        table: "orders",
        day: "2020-01-02",
        attempt: 3,
        retryCount: 2,
        taskName: "t1",
        queueName: "jobs-migration",
        body,
      },
    ]);
  });

  it("logs a body that is not a task with retry false and no task fields", async () => {
    const { runtime, lines } = failingRuntime(new Error("not reached"));
    const body = { ...copy, day: "2020-02-30" };
    expect(await post(runtime, body)).toBe(400);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ code: "INVALID_INPUT", retry: false, body });
    expect(lines[0]?.message).toMatch(/^task failed: /);
    expect(lines[0]).not.toHaveProperty("table");
  });

  it("answers 422 to a refusal from another copy of the core, judged by its code", async () => {
    const copyOfError = Object.assign(new Error("figures differ"), { code: "VERIFICATION_FAILED" });
    const { runtime, lines } = failingRuntime(copyOfError);
    expect(await post(runtime, { ...copy, day: "2020-01-02" })).toBe(422);
    expect(lines[0]).toMatchObject({ code: "VERIFICATION_FAILED", retry: false });
    expect(lines[0]).not.toHaveProperty("reason");
  });
});
