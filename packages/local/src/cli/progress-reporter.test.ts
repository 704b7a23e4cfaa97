import { PassThrough, Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { WorkerOutcomes, WorkerProgress } from "../worker/run-worker";
import type { CliIo } from "./cli-io";
import { createCliLogger } from "./cli-logger";
import { createScreen } from "./progress-reporter";
import { fakeTerminal } from "./testing/fake-terminal";

function logReporter() {
  const lines: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split("\n"));
      done();
    },
  });
  const io: CliIo = { env: {}, stdin: Readable.from([]), stdout, stderr: new PassThrough() };
  return { reporter: createScreen(io).progress(3), lines };
}

const progress = (done: number, remaining: number, rows = done * 10): WorkerProgress => ({
  done,
  failed: 0,
  remaining,
  rows,
  last: { kind: "clean", table: "orders", filterColumn: "created_at", day: `2024-01-0${done || 1}` },
});
const outcomes = (copied: number, deleted: number): WorkerOutcomes => ({
  copied: { days: copied ? 1 : 0, rows: copied },
  cleanup: { cleaned: deleted ? 1 : 0, alreadyClean: 0, alreadyDone: 0, rowsDeleted: deleted },
  failed: [],
  retried: 0,
});

describe("progress lines (not a terminal)", () => {
  it("prints the first line, then at most one every two seconds while tasks are left", () => {
    const { reporter, lines } = logReporter();
    reporter.update(progress(0, 3));
    reporter.update(progress(1, 2));
    reporter.update(progress(2, 1));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^progress: 0 done, 0 failed, 3 left, 0 rows, [\d,]+ rows\/s$/);
  });

  it("prints the line that empties the queue at once, and only once", () => {
    const { reporter, lines } = logReporter();
    reporter.update(progress(0, 3));
    reporter.update(progress(3, 0));
    reporter.update(progress(3, 0));
    reporter.update(progress(3, 0));
    expect(lines.map((line) => line.replace(/, [\d,]+ rows\/s$/, ""))).toEqual([
      "progress: 0 done, 0 failed, 3 left, 0 rows",
      "progress: 3 done, 0 failed, 0 left, 30 rows",
    ]);
  });

  it("counts a cleanup's rows as deleted, a migration's as copied", () => {
    const { reporter, lines } = logReporter();
    reporter.update(progress(3, 0, 2740), outcomes(0, 2740));
    const other = logReporter();
    other.reporter.update(progress(3, 0, 1500), outcomes(1000, 500));
    expect(lines[0]).toMatch(/^progress: 3 done, 0 failed, 0 left, 2,740 rows deleted, [\d,]+ rows\/s$/);
    expect(other.lines[0]).toMatch(/, 1,000 rows copied, 500 deleted, /);
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
    const reporter = createScreen({ env: {}, stdin: Readable.from([]), stdout, stderr }).progress(1);
    reporter.printError("refused: orders 2020-01-01: figures differ");
    expect(err).toEqual(["refused: orders 2020-01-01: figures differ\n"]);
    expect(out).toEqual([]);
  });
});

describe("on a terminal", () => {
  const BAR = /^ jobs-migration \[[=-]+\] \d+\/\d+ tasks \| /;

  it("keeps the bar on the last line, below every log and failure line, each whole", () => {
    const terminal = fakeTerminal({}, 100);
    const screen = createScreen(terminal.io);
    const logger = createCliLogger({ level: "info", text: true, print: screen.print });
    screen.print("out", "accepted: cleanup of orders: 3 days queued, 0 already queued, 0 refused");
    const reporter = screen.progress(3);
    for (const [index, day] of ["2024-01-01", "2024-01-02", "2024-01-03"].entries()) {
      logger.info("cleaned day", { table: "orders", day, rowsDeleted: 2740, durationMs: 41.2 });
      reporter.update(progress(index + 1, 2 - index, 2740 * (index + 1)), outcomes(0, 2740 * (index + 1)));
    }
    logger.warn("cleanup waiting for load to fall", {
      table: "orders",
      day: "2024-01-03",
      reason: "Threads_running is 90 (limit 64)",
      waitedMs: 5000,
    });
    reporter.printError("refused: orders 2024-01-04: figures differ");
    reporter.stop();
    screen.print(
      "out",
      "queue jobs-migration is empty: 3 days cleaned (8,220 rows deleted); 0 failed for good",
    );

    const lines = terminal.lines();
    expect(lines.slice(0, 4)).toEqual([
      "accepted: cleanup of orders: 3 days queued, 0 already queued, 0 refused",
      "cleaned orders 2024-01-01: 2,740 rows deleted in 41 ms",
      "cleaned orders 2024-01-02: 2,740 rows deleted in 41 ms",
      "cleaned orders 2024-01-03: 2,740 rows deleted in 41 ms",
    ]);
    expect(lines[4]).toBe("waiting orders 2024-01-03: Threads_running is 90 (limit 64) (5,000 ms so far)");
    expect(lines[5]).toBe("refused: orders 2024-01-04: figures differ");
    expect(lines[6]).toMatch(BAR);
    expect(lines[6]).toContain("3/3 tasks | 8,220 rows deleted | ");
    expect(lines[7]).toBe(
      "queue jobs-migration is empty: 3 days cleaned (8,220 rows deleted); 0 failed for good",
    );
    expect(lines).toHaveLength(8);
    // Warnings and failures went to stderr, the rest to stdout.
    const onStderr = terminal.writes.filter((w) => w.channel === "err").map((w) => w.text);
    expect(onStderr).toEqual([
      "waiting orders 2024-01-03: Threads_running is 90 (limit 64) (5,000 ms so far)\n",
      "refused: orders 2024-01-04: figures differ\n",
    ]);
  });

  it("ends every printed line before the bar is drawn again", () => {
    const terminal = fakeTerminal({}, 100);
    const screen = createScreen(terminal.io);
    const reporter = screen.progress(2);
    screen.print("out", "copied orders 2024-01-01: 1 row in 3 ms");
    reporter.update(progress(1, 1), outcomes(1, 0));
    screen.print("err", "retrying orders 2024-01-02 (copy, attempt 1 of 3): lost connection");
    reporter.stop();
    const text = terminal.writes.map((w) => w.text).join("");
    for (const line of ["copied orders 2024-01-01: 1 row in 3 ms", "retrying orders 2024-01-02"]) {
      const at = text.indexOf(line);
      const end = text.indexOf("\n", at);
      expect(at).toBeGreaterThan(-1);
      // Between the line's start and its newline: no bar, no carriage return.
      expect(text.slice(at, end)).not.toMatch(/\r|jobs-migration/);
      // And it starts on a line cleared of the bar.
      expect(text.slice(0, at).endsWith("\r\x1b[K")).toBe(true);
    }
  });

  it("cuts the bar to the terminal's width so it never wraps", () => {
    const terminal = fakeTerminal({}, 40);
    const reporter = createScreen(terminal.io).progress(365);
    reporter.update(progress(100, 265, 1_000_000), outcomes(1_000_000, 0));
    reporter.stop();
    const lines = terminal.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length).toBeLessThan(40);
  });

  it("ends at finished/finished when the worker's count of tasks left lagged a finished task", () => {
    const terminal = fakeTerminal({}, 100);
    const reporter = createScreen(terminal.io).progress(5);
    // One report counts a task both finished and still left (the worker's count lags it by a moment).
    reporter.update(progress(1, 5), outcomes(3, 0));
    reporter.update(progress(5, 0), outcomes(15, 0));
    reporter.stop();
    expect(terminal.lines().at(-1)).toContain("5/5 tasks");
  });

  it("shows no bar for an empty queue", () => {
    const terminal = fakeTerminal({}, 100);
    createScreen(terminal.io).progress(0).stop();
    expect(terminal.writes).toEqual([]);
  });
});

describe("pacing on the progress line", () => {
  it("shows what holds the work back in place of the last task while it does, and an ETA once a task is done", () => {
    const terminal = fakeTerminal({}, 160);
    const screen = createScreen(terminal.io);
    const logger = createCliLogger({ level: "info", text: true, print: screen.print, status: screen.status });
    const reporter = screen.progress(3);
    reporter.update(progress(1, 2));

    logger.warn("cleanup waiting for load to fall", {
      table: "orders",
      day: "2024-01-02",
      reason: "replica 10.0.0.2:3306 lags 4 s (limit 1 s)",
      waitedMs: 0,
    });
    expect(terminal.lines().at(-1)).toMatch(
      / \| eta \d+ s \| waiting: replica 10\.0\.0\.2:3306 lags 4 s \(limit 1 s\)$/,
    );
    logger.info("cleanup resumes after waiting", { table: "orders", day: "2024-01-02", waitedMs: 1000 });
    reporter.update(progress(2, 1));
    reporter.stop();
    expect(terminal.lines().filter(Boolean).at(-1)).toMatch(/ \| eta \d+ s \| clean orders 2024-01-02$/);
  });

  it("adds the reason to the plain progress line too", () => {
    const lines: string[] = [];
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk).trim());
        done();
      },
    });
    const screen = createScreen({ env: {}, stdin: Readable.from([]), stdout, stderr: new PassThrough() });
    const reporter = screen.progress(3);
    screen.status("waiting: Threads_running is 90 (limit 40)");
    reporter.update(progress(1, 2));
    expect(lines.at(-1)).toMatch(/rows\/s, eta \d+ s, waiting: Threads_running is 90 \(limit 40\)$/);
  });
});
