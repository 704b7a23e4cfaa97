import { describe, expect, it } from "vitest";
import { TasksLeft } from "./tasks-left";

describe("TasksLeft", () => {
  it("takes the tasks finished since the last count off it", () => {
    const left = new TasksLeft();
    left.counts(357, 0);
    expect(left.after(0, 0)).toBe(357);
    expect(left.after(267, 0)).toBe(90);
  });

  it("starts again from each new count", () => {
    const left = new TasksLeft();
    left.counts(357, 0);
    left.counts(126, 240);
    expect(left.after(267, 0)).toBe(99);
    // Tasks enqueued since: the count grows, and finishing counts down from there.
    left.counts(500, 267);
    expect(left.after(270, 0)).toBe(497);
  });

  it("never goes below zero when other workers empty the queue too", () => {
    const left = new TasksLeft();
    left.counts(3, 10);
    expect(left.after(20, 0)).toBe(0);
  });

  it("counts the tasks still running even when a count has missed them", () => {
    const left = new TasksLeft();
    // The count ran after the last task ended in the queue but before it was reported done here.
    left.counts(0, 356);
    expect(left.after(356, 1)).toBe(1);
    expect(left.after(357, 0)).toBe(0);
  });

  it("is zero before the first count", () => {
    expect(new TasksLeft().after(5, 0)).toBe(0);
  });
});
