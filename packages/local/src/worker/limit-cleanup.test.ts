import type { TaskPayload } from "@table-archiver/core";
import { describe, expect, it } from "vitest";
import { limitCleanup } from "./limit-cleanup";

const clean = (day: string): TaskPayload => ({ kind: "clean", table: "t", filterColumn: "at", day });
const copy = (day: string): TaskPayload => ({
  kind: "copy",
  table: "t",
  destination: "t",
  filterColumn: "at",
  day,
});

describe("limitCleanup", () => {
  it("runs at most `concurrency` cleanup tasks at once and never holds copies back", async () => {
    let running = { clean: 0, copy: 0 };
    const peak = { clean: 0, copy: 0 };
    const release: (() => void)[] = [];
    const process = limitCleanup(2, async (task) => {
      running = { ...running, [task.kind]: running[task.kind] + 1 };
      peak[task.kind] = Math.max(peak[task.kind], running[task.kind]);
      await new Promise<void>((resolve) => release.push(resolve));
      running = { ...running, [task.kind]: running[task.kind] - 1 };
      return task.day;
    });

    const tasks = [clean("d1"), clean("d2"), clean("d3"), clean("d4"), copy("c1"), copy("c2"), copy("c3")];
    const results = Promise.all(tasks.map(process));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(peak).toEqual({ clean: 2, copy: 3 });
    while (release.length > 0) {
      for (const next of release.splice(0)) next();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await results).toEqual(["d1", "d2", "d3", "d4", "c1", "c2", "c3"]);
    expect(peak.clean).toBe(2);
  });
});
