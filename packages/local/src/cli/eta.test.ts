import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io";
import { etaSeconds, etaText } from "./eta";
import { createScreen } from "./progress-reporter";

describe("etaSeconds", () => {
  const base = { finished: 2, remaining: 8, rows: 2_000, elapsedSeconds: 4 };

  it("goes at the tasks' pace without a cap, or with a cap above the measured rate", () => {
    // 2 tasks in 4 s: 8 more take 16 s; 500 rows/s measured.
    expect(etaSeconds({ ...base, cap: undefined })).toBe(16);
    expect(etaSeconds({ ...base, cap: 1_000 })).toBe(16);
  });

  it("takes the rows left at the cap when the cap is below the measured rate", () => {
    // 8,000 rows left at 100 rows/s, not at the 500 rows/s the first tasks went.
    expect(etaSeconds({ ...base, cap: 100 })).toBe(80);
  });

  it("has no estimate before the first task ends or once none is left", () => {
    expect(etaSeconds({ ...base, finished: 0, cap: 100 })).toBeUndefined();
    expect(etaSeconds({ ...base, remaining: 0, cap: 100 })).toBeUndefined();
    expect(etaText(125)).toBe("eta 2 min 5 s");
  });
});

describe("the CLI's progress line", () => {
  it("bounds its ETA by the last task's table cap", () => {
    const lines: string[] = [];
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk).trim());
        done();
      },
    });
    const io: CliIo = { env: {}, stdin: Readable.from([]), stdout, stderr: stdout };
    const last = {
      kind: "copy",
      table: "orders",
      destination: "a",
      filterColumn: "c",
      day: "2024-01-01",
    } as const;
    const reporter = createScreen(io).progress(2, {
      rateCap: (task) => (task.table === "orders" ? 10 : undefined),
    });
    // 1,000 rows copied at once: far above 10 rows/s, so the 1,000 rows of the last task take 100 s.
    reporter.update({ done: 1, failed: 0, remaining: 1, rows: 1_000, last });
    expect(lines.at(-1)).toMatch(/, eta 1 min 40 s$/);
  });
});
