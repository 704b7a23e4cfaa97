import { followPrimary } from "@table-archiver/core/testing";
import type mysql from "mysql2/promise";
import { BENCH_USER, type PrivateMariaDb } from "./private-mariadb";

/**
 * Makes `replica` follow `primary` by GTID from the primary's first binary
 * log, so everything the bench creates afterwards (databases, sysbench's
 * tables, the bench tables) reaches the replica as it would in production.
 */
export async function startReplication(primary: PrivateMariaDb, replica: PrivateMariaDb): Promise<void> {
  const connection = await replica.connect();
  try {
    await followPrimary(connection, primary.port, BENCH_USER);
  } finally {
    await connection.end();
  }
}

/**
 * Waits until the replica has applied everything the primary has written so
 * far, and fails with the replica's own error when replication stopped.
 */
export async function waitForReplica(
  primary: mysql.Connection,
  replica: mysql.Connection,
  timeoutSeconds = 600,
): Promise<void> {
  const [[position]] = (await primary.query("SELECT @@gtid_binlog_pos AS gtid")) as unknown as [
    [{ gtid: string }],
  ];
  const started = performance.now();
  while ((performance.now() - started) / 1000 < timeoutSeconds) {
    const [[waited]] = (await replica.query("SELECT MASTER_GTID_WAIT(?, 5) AS result", [
      position.gtid,
    ])) as unknown as [[{ result: number | string }]];
    if (Number(waited.result) === 0) return;
    const [[status]] = (await replica.query("SHOW SLAVE STATUS")) as unknown as [
      [Record<string, unknown> | undefined],
    ];
    if (status && (status.Slave_SQL_Running !== "Yes" || status.Slave_IO_Running === "No")) {
      throw new Error(
        `replication stopped: ${String(status.Last_SQL_Error || status.Last_IO_Error || "no error given")}`,
      );
    }
  }
  throw new Error(`the replica did not catch up within ${timeoutSeconds} s`);
}
