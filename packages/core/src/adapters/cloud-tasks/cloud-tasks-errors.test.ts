import { describe, expect, it } from "vitest";
import { ConfigError, InvalidInputError, TransientError } from "../../errors";
import { mapCloudTasksError, Status } from "./cloud-tasks-errors";

const queuePath = "projects/acme/locations/europe-west1/queues/jobs-migration";
const creating = {
  action: "creating a task",
  queuePath,
  invokerServiceAccount: "invoker@acme.iam.gserviceaccount.com",
} as const;
const reading = { ...creating, action: "reading the queue" } as const;
/** google-gax's GoogleError: a gRPC status code and the server's details. */
const gaxError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details });

describe("mapCloudTasksError", () => {
  it.each([
    ["UNAVAILABLE", Status.UNAVAILABLE],
    ["DEADLINE_EXCEEDED", Status.DEADLINE_EXCEEDED],
    ["RESOURCE_EXHAUSTED", Status.RESOURCE_EXHAUSTED],
    ["INTERNAL", Status.INTERNAL],
    ["ABORTED", Status.ABORTED],
  ])("retries %s", (_, code) => {
    const error = gaxError(code, "try later");
    const mapped = mapCloudTasksError(error, creating);
    expect(mapped).toBeInstanceOf(TransientError);
    expect(mapped.message).toBe(`Cloud Tasks creating a task on ${queuePath}: try later`);
    expect(mapped.cause).toBe(error);
  });

  it("names the roles for creating tasks when permission is denied", () => {
    const mapped = mapCloudTasksError(
      gaxError(Status.PERMISSION_DENIED, "cloudtasks.tasks.create denied"),
      creating,
    );
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toContain("roles/cloudtasks.enqueuer on the queue");
    expect(mapped.message).toContain("roles/iam.serviceAccountUser on invoker@acme.iam.gserviceaccount.com");
    expect(mapped.message).toContain("cloudtasks.tasks.create denied");
  });

  it("names the viewer role for reading the queue", () => {
    const mapped = mapCloudTasksError(gaxError(Status.PERMISSION_DENIED, "denied"), reading);
    expect(mapped.message).toContain("roles/cloudtasks.viewer");
  });

  it.each([
    [Status.NOT_FOUND, /queue is missing or disabled/],
    [Status.FAILED_PRECONDITION, /queue is missing or disabled/],
    [Status.UNAUTHENTICATED, /credentials were rejected/],
  ])("makes status %i a configuration error", (code, message) => {
    const mapped = mapCloudTasksError(gaxError(code, "x"), creating);
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toMatch(message);
  });

  it("makes a refused request invalid input, never retried", () => {
    const mapped = mapCloudTasksError(gaxError(Status.INVALID_ARGUMENT, "Task size too large"), creating);
    expect(mapped).toBeInstanceOf(InvalidInputError);
    expect(mapped.message).toContain("Task size too large");
  });

  it("leaves errors without a status alone", () => {
    const bug = new TypeError("boom");
    expect(mapCloudTasksError(bug, creating)).toBe(bug);
  });
});
