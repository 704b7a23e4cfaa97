import type { AccessCheck } from "../../ports/access-check";
import type { LoadProbe, RedoFill, ReplicaLag, ReplicaRedo } from "../../ports/load-probe";

/** A LoadProbe whose figures a test sets, counting how often replica lag was asked. */
export interface MemoryLoadProbe extends LoadProbe {
  lags: ReplicaLag[];
  threads: number;
  redo: RedoFill | null;
  replicaRedo: ReplicaRedo[];
  history: number | null;
  /** Calls of replicaLags so far: one per throttle check. */
  polls: number;
  /** What accessChecks answers: each throttle's signal readable unless a test says otherwise. */
  access: AccessCheck[];
}

/** An idle source by default: no replicas, one running thread, no redo or history figures. */
export function createMemoryLoadProbe(): MemoryLoadProbe {
  const probe: MemoryLoadProbe = {
    lags: [],
    threads: 1,
    redo: null,
    replicaRedo: [],
    history: null,
    polls: 0,
    access: [],
    async accessChecks() {
      return probe.access;
    },
    async replicaLags() {
      probe.polls += 1;
      return probe.lags;
    },
    async threadsRunning() {
      return probe.threads;
    },
    async redoFill() {
      return probe.redo;
    },
    async replicaRedoFills() {
      return probe.replicaRedo;
    },
    async historyLength() {
      return probe.history;
    },
    async close() {},
  };
  return probe;
}
