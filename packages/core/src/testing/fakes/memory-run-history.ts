import {
  addCounts,
  finishedRun,
  NO_COUNTS,
  type RunCounts,
  type RunRecord,
  type RunStart,
} from "../../model/run";
import type { RunHistory } from "../../ports/run-history";

interface LiveRun {
  start?: RunStart;
  counts: RunCounts;
  queued: Set<string>;
  ended: Set<string>;
  endedAt?: string;
  finished: boolean;
}

/** The run history in memory, for fast tests; it passes the RunHistory contract. */
export function createMemoryRunHistory(): RunHistory {
  const runs = new Map<string, LiveRun>();
  const live = (id: string): LiveRun => {
    let run = runs.get(id);
    if (!run) {
      run = { counts: NO_COUNTS, queued: new Set(), ended: new Set(), finished: false };
      runs.set(id, run);
    }
    return run;
  };
  const latest = (run: LiveRun, at: string) => {
    if (run.endedAt === undefined || at > run.endedAt) run.endedAt = at;
  };
  // As the Redis scripts do: finished once, when it has begun and every task it queued has ended.
  const finish = (run: LiveRun): RunRecord | undefined => {
    if (run.finished || !run.start || [...run.queued].some((task) => !run.ended.has(task))) return undefined;
    run.finished = true;
    return finishedRun(run.start, run.queued.size, run.counts, run.endedAt ?? run.start.startedAt);
  };
  return {
    async begin(start, tasks, counts, at) {
      const run = live(start.id);
      run.start = start;
      run.counts = addCounts(run.counts, counts);
      for (const task of tasks) run.queued.add(task);
      latest(run, at);
      return finish(run);
    },
    async queuedMore(runId, tasks) {
      if (tasks.length === 0) return undefined;
      const run = live(runId);
      for (const task of tasks) run.queued.add(task);
      return finish(run);
    },
    async taskEnded(runId, end) {
      const run = live(runId);
      if (run.ended.has(end.task)) return undefined;
      run.ended.add(end.task);
      run.counts = addCounts(run.counts, end.counts);
      latest(run, end.endedAt);
      return finish(run);
    },
    async openRuns(table, mode) {
      return [...runs.values()].flatMap((run) =>
        run.start && !run.finished && run.start.table === table && run.start.mode === mode
          ? [
              {
                start: run.start,
                lastNewsAt: run.endedAt ?? run.start.startedAt,
                unended: [...run.queued].filter((task) => !run.ended.has(task)),
              },
            ]
          : [],
      );
    },
  };
}
