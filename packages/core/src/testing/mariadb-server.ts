import { type ChildProcess, execFile } from "node:child_process";
import { chmod, chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import type mysql from "mysql2/promise";

// How a MariaDB server of a test's or a bench's own is laid out and started: the steps the tests'
// private servers (private-mariadb.ts) and the live bench's (scripts/bench/live) share.

const run = promisify(execFile);

/** A server's files under `dir`, made ready to start. */
export interface MariaDbFiles {
  readonly datadir: string;
  readonly errorLog: string;
  /** `mariadbd --no-defaults` arguments for these files on `port`, with `serverId` (a primary gets a ROW binary log). */
  args(port: number, serverId: number, primary: boolean): string[];
}

/**
 * A fresh data directory (`mariadb-install-db --no-defaults`) under `dir`,
 * its own temporary directory (servers bootstrapping side by side in /tmp
 * have clashed on temporary tables), and an init file that creates `account`
 * with every privilege and no password, kept out of the binary log so that a
 * replica, which creates its own, does not replay it and stop. As root the
 * server runs as the mysql user, which then owns the directory.
 */
export async function prepareMariaDbFiles(dir: string, account: string): Promise<MariaDbFiles> {
  const datadir = join(dir, "data");
  const tmp = join(dir, "tmp");
  await mkdir(tmp, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await Promise.all([chownToMysql(dir), chownToMysql(tmp)]);
  const user = asRoot ? ["--user=mysql"] : [];
  await run("mariadb-install-db", [
    "--no-defaults",
    `--datadir=${datadir}`,
    `--tmpdir=${tmp}`,
    "--skip-test-db",
    ...user,
  ]).catch((error: { stderr?: string; stdout?: string; message: string }) => {
    throw new Error(`${dir}: ${error.message}\n${(error.stderr || error.stdout || "").slice(-2000)}`);
  });
  const initFile = join(dir, "init.sql");
  await writeFile(
    initFile,
    `SET sql_log_bin=0;\nCREATE USER IF NOT EXISTS '${account}'@'%';\n` +
      `GRANT ALL ON *.* TO '${account}'@'%' WITH GRANT OPTION;\n`,
  );
  await chmod(initFile, 0o644);
  const errorLog = join(dir, "error.log");
  return {
    datadir,
    errorLog,
    args: (port, serverId, primary) => [
      "--no-defaults",
      `--datadir=${datadir}`,
      `--tmpdir=${tmp}`,
      `--port=${port}`,
      `--socket=${join(dir, "mariadbd.sock")}`,
      ...user,
      "--bind-address=127.0.0.1",
      // 127.0.0.1 must not resolve to 'localhost', whose accounts would shadow the account made above.
      "--skip-name-resolve",
      `--init-file=${initFile}`,
      `--log-error=${errorLog}`,
      `--pid-file=${join(dir, "mariadbd.pid")}`,
      `--server-id=${serverId}`,
      ...(primary ? [`--log-bin=${join(dir, "binlog")}`, "--binlog-format=ROW"] : []),
    ],
  };
}

/** Waits until `connect` succeeds; fails with the error log's end when the server exits first or the time runs out. */
export async function waitUntilUp(
  name: string,
  child: ChildProcess,
  connect: () => Promise<mysql.Connection>,
  errorLog: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = await readFile(errorLog, "utf8").catch(() => "");
      throw new Error(
        `${name}: mariadbd exited (${child.exitCode ?? child.signalCode}):\n${log.slice(-2000)}`,
      );
    }
    try {
      await (await connect()).end();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(
    `${name}: mariadbd did not accept connections within ${timeoutMs / 1000} s (see ${errorLog})`,
  );
}

async function chownToMysql(dir: string): Promise<void> {
  const passwd = await readFile("/etc/passwd", "utf8");
  const entry = passwd.split("\n").find((line) => line.startsWith("mysql:"));
  if (!entry) throw new Error("there is no mysql user to run mariadbd as (is mariadb-server installed?)");
  const [, , uid, gid] = entry.split(":");
  await chown(dir, Number(uid), Number(gid));
}

/** A loopback port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Ends one process by its PID: SIGTERM, then SIGKILL if it has not exited `graceMs` later. */
export async function stopByPid(child: ChildProcess, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(pid, "SIGTERM");
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, "SIGKILL");
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** Makes the server behind `replica` follow the primary on `primaryPort` by GTID, as `user`. */
export async function followPrimary(
  replica: mysql.Connection,
  primaryPort: number,
  user: string,
): Promise<void> {
  await replica.query(
    `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primaryPort}, MASTER_USER='${user}',
       MASTER_USE_GTID=slave_pos`,
  );
  await replica.query("START SLAVE");
}
