import { describe, expect, it } from "vitest";
import { TasksLeft } from "./tasks-left";

describe("TasksLeft", () => {
  it("takes the tasks finished since the last count off it", () => {
    const left = new TasksLeft();
    left.counts(357, 0);
    expect(left.after(0)).toBe(357);
    expect(left.after(267)).toBe(90);
  });

  it("starts again from each new count", () => {
    const left = new TasksLeft();
    left.counts(357, 0);
    left.counts(126, 240);
    expect(left.after(267)).toBe(99);
    // Tasks enqueued since: the count grows, and finishing counts down from there.
    left.counts(500, 267);
    expect(left.after(270)).toBe(497);
  });

  it("never goes below zero when other workers empty the queue too", () => {
    const left = new TasksLeft();
    left.counts(3, 10);
    expect(left.after(20)).toBe(0);
  });

  it("is zero before the first count", () => {
    expect(new TasksLeft().after(5)).toBe(0);
  });
});
