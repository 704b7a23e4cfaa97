import { PassThrough, Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io";
import { createProgressReporter } from "./progress-reporter";

function logReporter() {
  const lines: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split("\n"));
      done();
    },
  });
  const io: CliIo = { env: {}, stdin: Readable.from([]), stdout, stderr: new PassThrough() };
  return { reporter: createProgressReporter(io, 3), lines };
}

const progress = (done: number, remaining: number) => ({ done, failed: 0, remaining, rows: done * 10 });

describe("progress lines (not a terminal)", () => {
  it("prints the first line, then at most one every two seconds while tasks are left", () => {
    const { reporter, lines } = logReporter();
    reporter.update(progress(0, 3));
    reporter.update(progress(1, 2));
    reporter.update(progress(2, 1));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^progress: 0 done, 0 failed, 3 left, 0 rows/);
  });

  it("prints the line that empties the queue at once, and only once", () => {
    const { reporter, lines } = logReporter();
    reporter.update(progress(0, 3));
    reporter.update(progress(3, 0));
    reporter.update(progress(3, 0));
    reporter.update(progress(3, 0));
    expect(lines.map((line) => line.replace(/, \d+ rows\/s$/, ""))).toEqual([
      "progress: 0 done, 0 failed, 3 left, 0 rows",
      "progress: 3 done, 0 failed, 0 left, 30 rows",
    ]);
  });
});

describe("failure lines", () => {
  it("go to stderr, apart from the progress lines on stdout", () => {
    const err: string[] = [];
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        err.push(String(chunk));
        done();
      },
    });
    const out: string[] = [];
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        out.push(String(chunk));
        done();
      },
    });
    const reporter = createProgressReporter({ env: {}, stdin: Readable.from([]), stdout, stderr }, 1);
    reporter.printError("refused: orders 2020-01-01: figures differ");
    expect(err).toEqual(["refused: orders 2020-01-01: figures differ\n"]);
    expect(out).toEqual([]);
  });
});
