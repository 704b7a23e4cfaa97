import { describe, expect, it } from "vitest";
import { cloudTasksRetryInfo } from "./retry-info";

describe("cloudTasksRetryInfo", () => {
  it("reads the Cloud Tasks headers whatever their case", () => {
    expect(
      cloudTasksRetryInfo({
        "x-cloudtasks-taskretrycount": "3",
        "X-CloudTasks-TaskExecutionCount": "2",
        "x-cloudtasks-taskname": "abc-copy-20240131",
        "X-CLOUDTASKS-QUEUENAME": ["jobs-migration"],
        "content-type": "application/json",
      }),
    ).toEqual({
      retryCount: 3,
      executionCount: 2,
      taskName: "abc-copy-20240131",
      queueName: "jobs-migration",
    });
  });

  it("reports nothing for a request that did not come from Cloud Tasks, and ignores bad counts", () => {
    expect(cloudTasksRetryInfo({ "x-cloudtasks-taskretrycount": "-1" })).toEqual({
      retryCount: undefined,
      executionCount: undefined,
      taskName: undefined,
      queueName: undefined,
    });
  });
});
