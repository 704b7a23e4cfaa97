import { SingleBar } from "cli-progress";
import type { WorkerProgress } from "../worker/run-worker";
import { type CliIo, writeLine } from "./cli-io";

/**
 * Shows queue progress: a bar on a terminal, otherwise a line at most every
 * few seconds (CI logs stay readable). `printError` writes a line to stderr
 * without garbling the bar: the bar is stopped where it is and started again
 * below the line.
 */
export function createProgressReporter(io: CliIo, total: number) {
  const started = performance.now();
  if (io.stdout.isTTY) {
    const bar = new SingleBar({
      stream: io.stdout,
      format: " jobs-migration [{bar}] {value}/{total} tasks | {rows} rows | {rate} rows/s | {last}",
      hideCursor: true,
    });
    let shown = { total, value: 0, payload: { rows: 0, rate: 0, last: "" } };
    let stopped = false;
    bar.start(total, 0, shown.payload);
    return {
      update(p: WorkerProgress) {
        const finished = p.done + p.failed;
        shown = {
          total: Math.max(total, finished + p.remaining),
          value: finished,
          payload: { rows: p.rows, rate: rate(p.rows, started), last: describe(p) },
        };
        bar.setTotal(shown.total);
        bar.update(shown.value, shown.payload);
      },
      printError(line: string) {
        if (!stopped) bar.stop();
        writeLine(io.stderr, line);
        if (!stopped) bar.start(shown.total, shown.value, shown.payload);
      },
      stop: () => {
        stopped = true;
        bar.stop();
      },
    };
  }
  let lastLine = Number.NEGATIVE_INFINITY;
  let lastCounts = "";
  return {
    update(p: WorkerProgress) {
      const now = performance.now();
      const counts = `${p.done} ${p.failed} ${p.remaining} ${p.rows}`;
      // The last task's line comes at once, but only once: the queue reports an empty count more than once.
      if (p.remaining > 0 ? now - lastLine < 2000 : counts === lastCounts) return;
      lastLine = now;
      lastCounts = counts;
      writeLine(
        io.stdout,
        `progress: ${p.done} done, ${p.failed} failed, ${p.remaining} left, ${p.rows} rows, ${rate(p.rows, started)} rows/s`,
      );
    },
    printError: (line: string) => writeLine(io.stderr, line),
    stop: () => {},
  };
}

function rate(rows: number, started: number): number {
  const seconds = (performance.now() - started) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}

function describe(p: WorkerProgress): string {
  return p.last ? `${p.last.kind} ${p.last.table} ${p.last.day}` : "";
}
