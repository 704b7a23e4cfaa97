import type { TaskPayload } from "@table-archiver/core";
import type { WorkerOutcomes, WorkerProgress } from "../worker/run-worker";
import type { CliIo } from "./cli-io";
import { etaSeconds, etaText } from "./eta";
import { count, number } from "./wording";

/** Where a line goes: stdout or stderr. */
export type Channel = "out" | "err";

export interface ProgressReporter {
  /** The worker's progress; `outcomes` splits its rows into copied and deleted. */
  update(progress: WorkerProgress, outcomes?: WorkerOutcomes): void;
  /** A line on stderr (a task that failed for good), above the bar on a terminal. */
  printError(line: string): void;
  /** Draws the last state and leaves the bar where it is (a terminal), or does nothing. */
  stop(): void;
}

/**
 * The CLI's output while it runs. Everything written while a progress bar is
 * on the screen goes through `print`, so a line never lands inside the bar:
 * on a terminal the bar is the last line, each printed line clears it, ends
 * with its newline, and the bar is drawn again below it.
 */
export interface Screen {
  /** Prints one whole line to stdout or stderr. */
  print(channel: Channel, line: string): void;
  /**
   * What holds the work back now (`waiting: replica 10.0.0.2:3306 lags 4 s (limit 1 s)`), shown with the
   * progress until it is cleared with undefined.
   */
  status(text: string | undefined): void;
  /**
   * Shows the queue's progress until `stop()`: a bar on a terminal, otherwise a line every few seconds.
   * `rateCap` gives a task's table rate cap, which bounds the ETA (see etaSeconds).
   */
  progress(total: number, options?: ProgressOptions): ProgressReporter;
}

export interface ProgressOptions {
  /** Rows per second the task's table may go at, or undefined for no cap. */
  readonly rateCap?: (task: TaskPayload) => number | undefined;
}

/** Moves to the start of the line and clears it. */
const CLEAR_LINE = "\r\x1b[K";
/** Redraw the bar at most this often (lines printed above it redraw it at once). */
const REDRAW_MS = 100;
/** Without a terminal, a progress line at most this often. */
const LINE_EVERY_MS = 2000;

export function createScreen(io: CliIo): Screen {
  return io.stdout.isTTY ? terminalScreen(io) : plainScreen(io);
}

function terminalScreen(io: CliIo): Screen {
  /** The bar as last drawn, while one is on the screen. */
  let bar: string | undefined;
  /** Draws the bar of the progress under way, if any, as it stands now. */
  let redraw: (() => void) | undefined;
  const print = (channel: Channel, line: string) => {
    if (bar === undefined) {
      (channel === "out" ? io.stdout : io.stderr).write(`${line}\n`);
      return;
    }
    if (channel === "out") io.stdout.write(`${CLEAR_LINE}${line}\n`);
    else {
      io.stdout.write(CLEAR_LINE);
      io.stderr.write(`${line}\n`);
    }
    bar = "";
    redraw?.();
  };
  let status: string | undefined;
  return {
    print,
    status(text) {
      status = text;
      redraw?.();
    },
    progress(total, options) {
      const started = performance.now();
      let state = { total, finished: 0, rows: "0 rows", rate: 0, eta: "", last: "" };
      let drawnAt = Number.NEGATIVE_INFINITY;
      let stopped = false;
      const draw = () => {
        // An empty queue has no bar (a dry run's --wait): it appears with the first task.
        if (bar === undefined && state.total === 0 && state.finished === 0) return;
        // A pseudo-terminal may report 0 columns: take the usual 80.
        const text = barText({ ...state, status }, io.stdout.columns || 80);
        // Written again only when it changed (or a printed line cleared it).
        if (text !== bar) io.stdout.write(bar === "" ? text : `${CLEAR_LINE}${text}`);
        bar = text;
        drawnAt = performance.now();
      };
      redraw = draw;
      draw();
      return {
        update(p, outcomes) {
          if (stopped) return;
          const finished = p.done + p.failed;
          state = {
            // The worker's count of tasks left can lag a finished task by a moment; the total only grows
            // while tasks are left, and is what finished once none is.
            total: p.remaining === 0 ? finished : Math.max(state.total, finished + p.remaining),
            finished,
            rows: rowsText(p, outcomes),
            rate: rate(p.rows, started),
            eta: eta(p, started, options),
            last: p.last ? `${p.last.kind} ${p.last.table} ${p.last.day}` : "",
          };
          if (performance.now() - drawnAt >= REDRAW_MS || p.remaining === 0) draw();
        },
        printError: (line) => print("err", line),
        stop() {
          if (stopped) return;
          stopped = true;
          draw();
          if (bar !== undefined) io.stdout.write("\n");
          bar = undefined;
          redraw = undefined;
        },
      };
    },
  };
}

function plainScreen(io: CliIo): Screen {
  const print = (channel: Channel, line: string) =>
    (channel === "out" ? io.stdout : io.stderr).write(`${line}\n`);
  let status: string | undefined;
  return {
    print,
    status(text) {
      status = text;
    },
    progress(_total, options) {
      const started = performance.now();
      let lastLine = Number.NEGATIVE_INFINITY;
      let lastCounts = "";
      return {
        update(p, outcomes) {
          const now = performance.now();
          const counts = `${p.done} ${p.failed} ${p.remaining} ${p.rows}`;
          // The last task's line comes at once, but only once: the queue reports an empty count more than once.
          if (p.remaining > 0 ? now - lastLine < LINE_EVERY_MS : counts === lastCounts) return;
          lastLine = now;
          lastCounts = counts;
          print(
            "out",
            `progress: ${p.done} done, ${p.failed} failed, ${p.remaining} left, ${rowsText(p, outcomes)}, ` +
              `${number(rate(p.rows, started))} rows/s${suffix(eta(p, started, options))}${suffix(status)}`,
          );
        },
        printError: (line) => print("err", line),
        stop: () => {},
      };
    },
  };
}

/**
 * ` jobs-migration [=====-----] 3/6 tasks | 1,500 rows copied | 3,000 rows/s | eta 12 s | copy orders 2024-01-03`,
 * with what holds the work back in place of the last task while something does, cut to the terminal's width.
 */
function barText(
  state: {
    total: number;
    finished: number;
    rows: string;
    rate: number;
    eta: string;
    last: string;
    status: string | undefined;
  },
  columns: number,
): string {
  const width = columns >= 100 ? 20 : 10;
  const filled =
    state.total > 0 ? Math.min(width, Math.round((state.finished / state.total) * width)) : width;
  const parts = [
    ` jobs-migration [${"=".repeat(filled)}${"-".repeat(width - filled)}] ${state.finished}/${state.total} tasks`,
    state.rows,
    `${number(state.rate)} rows/s`,
    ...(state.eta ? [state.eta] : []),
    ...(state.status ? [state.status] : state.last ? [state.last] : []),
  ];
  // One character short of the width: a full line would wrap, and the next redraw would start a line too low.
  return [...parts.join(" | ")].slice(0, Math.max(1, columns - 1)).join("");
}

/** `1,500 rows copied`, `2,740 rows deleted`, both, or `0 rows` before either. */
function rowsText(p: WorkerProgress, outcomes?: WorkerOutcomes): string {
  if (!outcomes) return count(p.rows, "row");
  const copied = outcomes.copied.rows;
  const deleted = outcomes.cleanup.rowsDeleted;
  if (copied > 0 && deleted > 0) return `${count(copied, "row")} copied, ${number(deleted)} deleted`;
  if (deleted > 0) return `${count(deleted, "row")} deleted`;
  if (copied > 0) return `${count(copied, "row")} copied`;
  return count(p.rows, "row");
}

/** `eta 2 min 10 s`: the rows left at the measured rate, bounded by the last task's table cap. */
function eta(p: WorkerProgress, started: number, options: ProgressOptions | undefined): string {
  const cap = p.last ? options?.rateCap?.(p.last) : undefined;
  const elapsedSeconds = (performance.now() - started) / 1000;
  const finished = p.done + p.failed;
  return etaText(etaSeconds({ finished, remaining: p.remaining, rows: p.rows, elapsedSeconds, cap }));
}

function suffix(text: string | undefined): string {
  return text ? `, ${text}` : "";
}

function rate(rows: number, started: number): number {
  const seconds = (performance.now() - started) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}
