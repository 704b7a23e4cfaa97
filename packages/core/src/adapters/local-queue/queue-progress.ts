import { EventEmitter, once } from "node:events";
import type { TaskQueue } from "../../ports/task-queue";
import { TasksLeft } from "./tasks-left";

/**
 * Counting the queue runs a script over five job states: a progress report
 * after every task would cost more Redis work than the task's own bookkeeping,
 * so the count is refreshed at most this often, and once more after the last
 * task (drained() also reports the final zero).
 */
const PROGRESS_MS = 250;
/** drained() asks the queue again this often when no report comes sooner. */
const POLL_MS = 200;
/** When the queue stays empty this long, a job whose report never came is not waited for. */
const REPORT_GRACE_MS = 2_000;

/** Ends a wait when the worker closes. */
export type UntilClosed = <T>(work: Promise<T>) => Promise<T>;

/**
 * The local worker's one account of the tasks left. The figure is BullMQ's
 * count of the queue's live jobs (TaskQueue.count: waiting, delayed, active,
 * prioritized), less the tasks this worker has finished since that count
 * (TasksLeft), and never below the jobs it has started and not yet reported:
 * it falls with every task between two counts and the next count corrects it
 * (new tasks, other workers). Every count the worker takes of its queue comes
 * through here, and every figure it reports, as an event or as remaining(),
 * is this one.
 */
export class QueueProgress {
  private readonly left = new TasksLeft();
  /** Jobs started here whose end is not reported yet. */
  private readonly unreported = new Set<string>();
  /** Jobs whose end was reported here as final: completed, or failed with no retry. */
  private finished = 0;
  private countedAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private reported: number | undefined;
  private readonly reports = new EventEmitter();

  constructor(
    private readonly queue: Pick<TaskQueue, "count">,
    private readonly onRemaining: (remaining: number) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Tasks still waiting, delayed or running, as of the last count and the tasks ended since. */
  remaining(): number {
    return this.left.after(this.finished, this.unreported.size);
  }

  /** A job started here: it counts as left until its end is reported. */
  started(jobId: string | undefined): void {
    if (jobId) this.unreported.add(jobId);
  }

  /** A job's run ended and is reported now: for good (`final`), or failed and to be retried. */
  ended(jobId: string | undefined, final: boolean): void {
    if (jobId) this.unreported.delete(jobId);
    if (final) this.finished += 1;
  }

  /** Counts the queue now; with `report`, reports the figure. */
  async count(report = false): Promise<number> {
    const counted = await this.queue.count();
    this.left.counts(counted, this.finished);
    if (report) this.report(this.remaining());
    return counted;
  }

  /**
   * After a task's report: reports a fresh count, or when the last one is
   * too recent, once that interval is over, so a worker that goes idle still
   * shows the last tasks leaving the queue. Then wakes drained().
   */
  async refresh(): Promise<void> {
    try {
      const wait = this.countedAt + PROGRESS_MS - Date.now();
      if (wait > 0) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.refresh().catch(this.onError);
        }, wait).unref();
        return;
      }
      this.countedAt = Date.now();
      await this.count(true);
    } finally {
      this.reports.emit("report");
    }
  }

  /**
   * Reports the queue's count at once, then resolves once a count finds it
   * empty while `idle()` and every job started here has been reported (or the
   * queue has stayed empty REPORT_GRACE_MS without the missing reports), and
   * reports zero unless that was the last figure.
   */
  async drained(idle: () => boolean, untilClosed: UntilClosed): Promise<void> {
    // The reported count is also the loop's first: two counts in a row would tell nothing new.
    let counted: number | undefined = await untilClosed(this.count(true));
    let emptySince: number | undefined;
    for (;;) {
      // A task still running here is a live job: no need to ask Redis.
      const empty = idle() && (counted ?? (await untilClosed(this.count()))) === 0;
      counted = undefined;
      emptySince = empty ? (emptySince ?? Date.now()) : undefined;
      if (empty && (this.unreported.size === 0 || Date.now() - (emptySince ?? 0) >= REPORT_GRACE_MS)) {
        // A report that has not come by now is not waited for.
        this.unreported.clear();
        if (this.reported !== 0) this.report(0);
        return;
      }
      await untilClosed(this.nextReport());
    }
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private report(remaining: number): void {
    this.reported = remaining;
    this.onRemaining(remaining);
  }

  /** The next task's report, or POLL_MS, whichever comes first. */
  private async nextReport(): Promise<void> {
    await once(this.reports, "report", { signal: AbortSignal.timeout(POLL_MS) }).catch(() => {});
  }
}
