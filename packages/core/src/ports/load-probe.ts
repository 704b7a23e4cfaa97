import type { AccessCheck } from "./access-check";

/**
 * One replica's lag; `seconds` is null when the replica cannot tell (replication stopped, not a replica,
 * unreachable, no heartbeat or a stale one).
 */
export interface ReplicaLag {
  /** host:port of the replica, never its credentials. */
  readonly replica: string;
  /** Whole seconds from the replica's status, or fractional ones from a heartbeat table. */
  readonly seconds: number | null;
  /** Why `seconds` is null, for the log. */
  readonly reason?: string;
}

/** How full InnoDB's redo log is: the checkpoint age against the log's capacity. */
export interface RedoFill {
  readonly checkpointAgeBytes: number;
  readonly capacityBytes: number;
  /** checkpointAgeBytes as a percentage of capacityBytes. */
  readonly percent: number;
}

/**
 * One replica's redo log fill. A replica applies the same deletes as the
 * primary and fills its own log as fast; at its flush point it stops
 * applying, whatever its lag said a moment before. `fill` is null when the
 * replica cannot be reached (`reason` says why) or does not report it.
 */
export interface ReplicaRedo {
  /** host:port of the replica, never its credentials. */
  readonly replica: string;
  readonly fill: RedoFill | null;
  readonly reason?: string;
}

/** The throttles a cleanup has switched on, whose signals the account must be able to read. */
export interface ThrottleSignals {
  readonly replicaLag: boolean;
  readonly redo: boolean;
  readonly historyLength: boolean;
}

/**
 * How loaded the source is, asked before each cleanup chunk.
 *
 * Guarantees: `replicaLags` answers one entry per configured replica and
 * never throws for one replica's failure (that replica reports null), except
 * when the account may not read a replica's status: that throws a
 * RefusalError (reason `privilege`) naming the grant, since a throttle
 * that cannot read its signal must neither run blind nor wait forever;
 * `redoFill` and `historyLength` throw the same when the account may not
 * read their figure; `threadsRunning` is the primary's `Threads_running`;
 * `redoFill` is the primary's redo log fill and `historyLength` its InnoDB
 * history list length (undo not yet purged), each null when the server does
 * not report it; `replicaRedoFills` answers one entry per configured replica,
 * its fill null when that replica cannot be read, and throws as `redoFill`
 * does when the account may not read it there.
 *
 * Leaves out: deciding whether to wait (the throttle does).
 */
export interface LoadProbe {
  replicaLags(): Promise<readonly ReplicaLag[]>;
  /** Whether the account can read the signal of each throttle in `signals` (one check per replica). */
  accessChecks(signals: ThrottleSignals): Promise<readonly AccessCheck[]>;
  threadsRunning(): Promise<number>;
  redoFill(): Promise<RedoFill | null>;
  replicaRedoFills(): Promise<readonly ReplicaRedo[]>;
  historyLength(): Promise<number | null>;
  close(): Promise<void>;
}
