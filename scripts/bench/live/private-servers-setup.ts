import { loadBenchTables, PARTITIONED_TABLE, partitionRows, type TableSize } from "./bench-tables";
import { runChecked } from "./child-processes";
import { type PrivateMariaDb, startPrivateMariaDb } from "./private-mariadb";
import { flushSetupRedo } from "./quiet-gap";
import { startReplication, waitForReplica } from "./replication";
import { createHeartbeatTable } from "./server-samplers";
import { prepareWorkload } from "./sysbench-workload";

export interface PrivateServers {
  readonly primary: PrivateMariaDb;
  readonly replica: PrivateMariaDb;
  readonly version: string;
  readonly rows: number;
}

const log = (message: string) => console.log(`[setup] ${message}`);

/**
 * Everything before the workload starts: a primary (binary log, ROW) and its
 * replica, each a private server; with `pin`, this process and so all it
 * starts later (replica, the archiver, pt-archiver) on CPU 1 and the primary
 * on CPU 0 (sysbench joins it there, see startWorkload), as when the tools run
 * on another host. Then sysbench's
 * tables, the heartbeat and the four bench tables (the partitioned one
 * checked partition by partition on the replica), all replicated, and the
 * redo log flushed, so the baseline starts on a quiet server.
 */
export async function setUpPrivateServers(options: {
  baseDir: string;
  pin: boolean;
  size: TableSize;
  started: (servers: Partial<PrivateServers>) => void;
  onUnexpectedExit: (name: string, errorLogTail: string) => void;
}): Promise<PrivateServers> {
  if (options.pin) {
    await runChecked("taskset", "taskset", ["-a", "-p", "-c", "1", String(process.pid)]);
    log("this process, the tools and the replica: CPU 1; the primary and the workload's client: CPU 0");
  }
  const primary = await startPrivateMariaDb({
    name: "primary",
    baseDir: options.baseDir,
    serverId: 1,
    primary: true,
    ...(options.pin ? { cpu: 0 } : {}),
    onUnexpectedExit: options.onUnexpectedExit,
  });
  options.started({ primary });
  const replica = await startPrivateMariaDb({
    name: "replica",
    baseDir: options.baseDir,
    serverId: 2,
    primary: false,
  });
  options.started({ primary, replica });
  log(
    `primary pid ${primary.pid} port ${primary.port}, replica pid ${replica.pid} port ${replica.port} (${options.baseDir})`,
  );
  await startReplication(primary, replica);

  const admin = await primary.connect();
  const replicaAdmin = await replica.connect();
  try {
    const [[version]] = (await admin.query("SELECT VERSION() AS v")) as unknown as [[{ v: string }]];
    await createHeartbeatTable(admin);
    await prepareWorkload(primary);
    const started = performance.now();
    const rows = await loadBenchTables(admin, options.size);
    log(
      `loaded ${rows.toLocaleString("en-US")} rows four times in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    await waitForReplica(admin, replicaAdmin);
    log("replica caught up");
    // The partitioned table must reach the replica as it is on the primary: same partitions, same rows.
    const [onPrimary, onReplica] = await Promise.all([partitionRows(admin), partitionRows(replicaAdmin)]);
    const shown = (list: typeof onPrimary) => list.map((p) => `${p.partition} ${p.rows}`).join(", ");
    if (shown(onPrimary) !== shown(onReplica)) {
      throw new Error(
        `${PARTITIONED_TABLE} differs on the replica: primary ${shown(onPrimary)}; replica ${shown(onReplica) || "no partitions"}`,
      );
    }
    log(`${PARTITIONED_TABLE} replicated: ${shown(onReplica)}`);
    const redoSeconds = await flushSetupRedo(admin, 300);
    log(`redo flushed after ${redoSeconds.toFixed(1)} s`);
    return { primary, replica, version: version.v, rows };
  } finally {
    await Promise.allSettled([admin.end(), replicaAdmin.end()]);
  }
}
