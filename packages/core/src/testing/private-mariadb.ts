import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import mysql from "mysql2/promise";
import { followPrimary, freePort, prepareMariaDbFiles, stopByPid, waitUntilUp } from "./mariadb-server";

/**
 * MariaDB servers of a test's own, for what the shared server cannot stand
 * in for: a real replica to stop and start, server-wide figures nobody else
 * moves. Each gets a fresh data directory (`mariadb-install-db
 * --no-defaults`) in a temporary directory, `mariadbd --no-defaults` on a
 * free loopback port (never the shared 3306), and an `admin` account with no
 * password made by an init file kept out of the binary log. The test ends
 * them by their PIDs in afterAll (`stop`), which also removes the directory.
 *
 * The live bench (scripts/bench/live/private-mariadb.ts) starts its servers
 * from the same files (mariadb-server.ts), with CPU pinning and its own account.
 */
const PRIVATE_ADMIN = "admin";

export interface PrivateMariaDb {
  readonly port: number;
  readonly pid: number;
  /** `mysql://admin@127.0.0.1:<port>`, with `/database` when given. */
  url(database?: string): string;
  connect(database?: string): Promise<mysql.Connection>;
}

export interface PrivateServers {
  readonly primary: PrivateMariaDb;
  /** Follows the primary by GTID from its first binary log; absent when only a primary was asked for. */
  readonly replica: PrivateMariaDb | undefined;
  /** Ends every server by its PID and removes the temporary directory. */
  stop(): Promise<void>;
}

/**
 * Whether this machine can start private servers: `mariadbd` and
 * `mariadb-install-db` on the PATH. Tests skip without them, saying so, except
 * under CI (`CI` set), whose machines have them: there a missing binary fails.
 */
export function privateMariaDbAvailable(): boolean {
  if (process.env.CI) return true;
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  const onPath = (name: string) =>
    dirs.some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  const available = onPath("mariadbd") && onPath("mariadb-install-db");
  if (!available)
    console.log(
      "skipped: mariadbd or mariadb-install-db is not on the PATH (apt-get install mariadb-server)",
    );
  return available;
}

/** A primary (binary log, ROW format) and, with `replica`, a replica of it replicating everything from the start. */
export async function startPrivateServers(options: { readonly replica: boolean }): Promise<PrivateServers> {
  const baseDir = await mkdtemp(join(tmpdir(), "archiver-private-"));
  // mariadbd drops to the mysql user when started as root; it must reach its directory.
  await chmod(baseDir, 0o755);
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopByPid(child, 20_000);
    await rm(baseDir, { recursive: true, force: true, maxRetries: 5 });
  };
  try {
    // Both settled before anything is removed: a failed one must not pull the directory from under the other.
    const started = await Promise.allSettled([
      startServer(baseDir, "primary", 1, children),
      ...(options.replica ? [startServer(baseDir, "replica", 2, children)] : []),
    ]);
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const servers = started.map((result) => (result as PromiseFulfilledResult<PrivateMariaDb>).value);
    const [primary, replica] = servers as [PrivateMariaDb, PrivateMariaDb | undefined];
    if (replica) {
      const connection = await replica.connect();
      try {
        await followPrimary(connection, primary.port, PRIVATE_ADMIN);
      } finally {
        await connection.end();
      }
    }
    return { primary, replica, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startServer(
  baseDir: string,
  name: string,
  serverId: number,
  children: ChildProcess[],
): Promise<PrivateMariaDb> {
  const files = await prepareMariaDbFiles(join(baseDir, name), PRIVATE_ADMIN);
  const port = await freePort();
  const child = spawn(
    "mariadbd",
    [...files.args(port, serverId, serverId === 1), "--innodb-buffer-pool-size=32M"],
    {
      stdio: "ignore",
    },
  );
  children.push(child);
  const url = (database?: string) =>
    `mysql://${PRIVATE_ADMIN}@127.0.0.1:${port}${database ? `/${database}` : ""}`;
  const connect = (database?: string) =>
    mysql.createConnection({ uri: url(database), multipleStatements: true, dateStrings: true });
  await waitUntilUp(`private ${name}`, child, connect, files.errorLog, 60_000);
  return { port, pid: child.pid ?? 0, url, connect };
}

/** Waits until the replica has applied everything the primary has written so far. */
export async function waitForReplica(servers: PrivateServers, timeoutSeconds = 30): Promise<void> {
  const primary = await servers.primary.connect();
  const replica = await servers.replica?.connect();
  try {
    if (!replica) return;
    const [[position]] = (await primary.query("SELECT @@gtid_binlog_pos AS gtid")) as unknown as [
      [{ gtid: string }],
    ];
    const [[waited]] = (await replica.query("SELECT MASTER_GTID_WAIT(?, ?) AS result", [
      position.gtid,
      timeoutSeconds,
    ])) as unknown as [[{ result: number | string }]];
    if (Number(waited.result) !== 0)
      throw new Error(`the replica did not catch up within ${timeoutSeconds} s`);
  } finally {
    await Promise.allSettled([primary.end(), replica?.end()]);
  }
}
