import { describe, expect, it } from "vitest";
import type { CopyDayTask } from "../../model/task";
import { createTaskRequest, handlerAudience, hourlyRun, queuePath, taskId } from "./task-request";

const task: CopyDayTask = {
  kind: "copy",
  table: "orders",
  destination: "archive.orders",
  filterColumn: "created_at",
  day: "2024-01-31",
};

describe("taskId", () => {
  it("is stable for the same (kind, table, day, run)", () => {
    const elsewhere: CopyDayTask = { ...task, destination: "elsewhere.orders" };
    expect(taskId(task, "2024020110")).toBe(taskId(elsewhere, "2024020110"));
  });

  it("differs when any of kind, table, day or run differs", () => {
    const ids = new Set([
      taskId(task, "2024020110"),
      taskId({ kind: "clean", table: "orders", day: "2024-01-31" }, "2024020110"),
      taskId({ ...task, table: "orders2" }, "2024020110"),
      taskId({ ...task, day: "2024-02-01" }, "2024020110"),
      taskId(task, "2024020111"),
      // Fields are separated, so shifting characters between them cannot collide.
      taskId({ ...task, table: "orders1" }, "024020110"),
    ]);
    expect(ids.size).toBe(6);
  });

  it("uses only the characters Cloud Tasks allows, leads with the hash and stays short", () => {
    const id = taskId({ kind: "copy", table: "we$ird_table", day: "2024-01-31" }, "2024020110r1");
    expect(id).toMatch(/^[0-9a-f]{40}-copy-20240131$/);
    expect(id.length).toBeLessThanOrEqual(500);
  });
});

describe("hourlyRun", () => {
  it("is the UTC hour", () => {
    expect(hourlyRun(new Date("2024-02-01T10:59:59.999Z"))).toBe("2024020110");
    expect(hourlyRun(new Date("2024-02-01T11:00:00+01:00"))).toBe("2024020110");
  });
});

describe("handlerAudience", () => {
  it.each([
    ["https://task-handler-abc-ew.a.run.app", "https://task-handler-abc-ew.a.run.app"],
    ["https://task-handler-abc-ew.a.run.app/", "https://task-handler-abc-ew.a.run.app"],
    [
      "https://europe-west1-acme.cloudfunctions.net/taskHandler?x=1",
      "https://europe-west1-acme.cloudfunctions.net/taskHandler",
    ],
  ])("of %s is %s", (url, audience) => {
    expect(handlerAudience(url)).toBe(audience);
  });
});

describe("createTaskRequest", () => {
  it("posts the JSON payload to the handler with an OIDC token and the dispatch deadline", () => {
    const target = {
      project: "acme",
      location: "europe-west1",
      handlerUrl: "https://europe-west1-acme.cloudfunctions.net/taskHandler",
      invokerServiceAccount: "invoker@acme.iam.gserviceaccount.com",
      dispatchDeadlineSeconds: 1800,
    };
    const request = createTaskRequest(target, task, "2024020110");
    const parent = "projects/acme/locations/europe-west1/queues/jobs-migration";
    expect(queuePath("acme", "europe-west1")).toBe(parent);
    expect(request).toEqual({
      parent,
      task: {
        name: `${parent}/tasks/${taskId(task, "2024020110")}`,
        httpRequest: {
          httpMethod: "POST",
          url: target.handlerUrl,
          headers: { "Content-Type": "application/json" },
          body: expect.any(Buffer),
          oidcToken: {
            serviceAccountEmail: "invoker@acme.iam.gserviceaccount.com",
            audience: "https://europe-west1-acme.cloudfunctions.net/taskHandler",
          },
        },
        dispatchDeadline: { seconds: 1800 },
      },
    });
    expect(JSON.parse(String(request.task?.httpRequest?.body))).toEqual(task);
  });
});
