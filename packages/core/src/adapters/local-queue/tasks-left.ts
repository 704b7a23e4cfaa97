/**
 * How many tasks are left, between two counts of the queue. The worker
 * counts the queue at most every 250 ms (counting runs a script over five
 * job states) while its tasks finish all the time; a count taken as it was
 * would show `done + left` above the number of tasks, 393 of 357 in a demo.
 * Tasks finished since the last count are taken off it, so the figure falls
 * with every task and the next count corrects it (new tasks, other workers).
 * It never falls below the tasks this worker is still running: a count can
 * miss a task that has just ended but is not reported done yet, and "0 left"
 * while the last task is being recorded would be wrong.
 */
export class TasksLeft {
  private counted = 0;
  private finishedAtCount = 0;

  /** A fresh count of the queue, taken when `finished` tasks had finished here. */
  counts(remaining: number, finished: number): void {
    this.counted = remaining;
    this.finishedAtCount = finished;
  }

  /** Tasks left once `finished` tasks have finished here and `running` more have started but not finished. */
  after(finished: number, running: number): number {
    return Math.max(running, this.counted - (finished - this.finishedAtCount));
  }
}
