import { describe, expect, it } from "vitest";
import { createRedoSteps } from "./redo-steps";

describe("createRedoSteps", () => {
  it("knows no step before a chunk has run between two readings", () => {
    const steps = createRedoSteps();
    expect(steps.next("redo log", 40)).toBe(40);
    expect(steps.next("redo log", 45)).toBe(45);
  });

  it("learns a log's step from its rise across a chunk, and keeps it while the cleanup waits", () => {
    const steps = createRedoSteps();
    steps.next("redo log", 40);
    steps.chunkRan();
    expect(steps.next("redo log", 44)).toBe(48);
    // Flushing while held lowers the fill; the step stays what the last chunk wrote.
    expect(steps.next("redo log", 42)).toBe(46);
  });

  it("spreads a rise over every chunk run since the log was last read", () => {
    const steps = createRedoSteps();
    steps.next("replica r1 redo log", 20);
    steps.chunkRan();
    steps.chunkRan();
    expect(steps.next("replica r1 redo log", 26)).toBe(29);
  });

  it("takes a fall across a chunk as no step, and keeps each log's step apart", () => {
    const steps = createRedoSteps();
    steps.next("redo log", 50);
    steps.next("replica r1 redo log", 30);
    steps.chunkRan();
    expect(steps.next("redo log", 45)).toBe(45);
    expect(steps.next("replica r1 redo log", 35)).toBe(40);
  });
});
