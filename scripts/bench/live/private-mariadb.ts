import type { ChildProcess } from "node:child_process";
import { chmod, chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { runChecked, startProcess, stopProcess } from "./child-processes";

/** The one account the bench and its tools use on its private servers: no password, loopback only. */
export const BENCH_USER = "bench";

export interface PrivateMariaDb {
  readonly name: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number;
  /** `mysql://bench@127.0.0.1:<port>` (no database). */
  readonly url: string;
  connect(database?: string): Promise<mysql.Connection>;
  stop(): Promise<void>;
}

export interface MariaDbOptions {
  readonly name: string;
  /** The bench's temporary directory; the server gets `<baseDir>/<name>`. */
  readonly baseDir: string;
  readonly serverId: number;
  /** Binary log in ROW format, for the replica to follow. */
  readonly primary: boolean;
  /** Run the server on this CPU alone (`taskset -c`). */
  readonly cpu?: number;
  /**
   * Called when the server ends without being asked to (a crash), with the
   * end of its error log (where MariaDB writes its stack trace).
   */
  readonly onUnexpectedExit?: (name: string, errorLogTail: string) => void;
}

/**
 * A MariaDB server of the bench's own: a fresh data directory made by
 * `mariadb-install-db --no-defaults`, `mariadbd --no-defaults` on a free
 * loopback port (never the shared server on 3306), and the `bench` account
 * created by an init file that is kept out of the binary log, so that the
 * replica, which creates its own, does not replay it and stop.
 */
export async function startPrivateMariaDb(options: MariaDbOptions): Promise<PrivateMariaDb> {
  const dir = join(options.baseDir, options.name);
  const datadir = join(dir, "data");
  await mkdir(dir, { recursive: true });
  // mariadbd drops to the mysql user when started as root; that user must own its directory.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chownToMysql(dir);
  const user = asRoot ? ["--user=mysql"] : [];
  await runChecked(`${options.name}: mariadb-install-db`, "mariadb-install-db", [
    "--no-defaults",
    `--datadir=${datadir}`,
    ...user,
  ]);
  const initFile = join(dir, "init.sql");
  await writeFile(
    initFile,
    `SET sql_log_bin=0;\nCREATE USER IF NOT EXISTS '${BENCH_USER}'@'%';\n` +
      `GRANT ALL ON *.* TO '${BENCH_USER}'@'%' WITH GRANT OPTION;\n`,
  );
  await chmod(initFile, 0o644);
  const port = await freePort();
  const errorLog = join(dir, "error.log");
  const serverArgs = [
    "--no-defaults",
    `--datadir=${datadir}`,
    `--port=${port}`,
    `--socket=${join(dir, "mariadbd.sock")}`,
    ...user,
    "--bind-address=127.0.0.1",
    // 127.0.0.1 must not resolve to 'localhost', whose anonymous account would shadow 'bench'@'%'.
    "--skip-name-resolve",
    `--init-file=${initFile}`,
    `--log-error=${errorLog}`,
    `--pid-file=${join(dir, "mariadbd.pid")}`,
    `--server-id=${options.serverId}`,
    ...(options.primary ? [`--log-bin=${join(dir, "binlog")}`, "--binlog-format=ROW"] : []),
  ];
  const child =
    options.cpu === undefined
      ? startProcess(options.name, "mariadbd", serverArgs)
      : startProcess(options.name, "taskset", ["-c", String(options.cpu), "mariadbd", ...serverArgs]);
  const url = `mysql://${BENCH_USER}@127.0.0.1:${port}`;
  const connect = (database?: string) =>
    mysql.createConnection({
      host: "127.0.0.1",
      port,
      user: BENCH_USER,
      multipleStatements: true,
      ...(database ? { database } : {}),
    });
  let stopping = false;
  child.once("exit", (code, signal) => {
    if (stopping) return;
    void readFile(errorLog, "utf8")
      .catch(() => "")
      .then((log) =>
        options.onUnexpectedExit?.(
          options.name,
          `exit ${code ?? signal}\n${log.split("\n").slice(-60).join("\n")}`,
        ),
      );
  });
  await waitUntilUp(options.name, child, connect, errorLog);
  return {
    name: options.name,
    port,
    dir,
    pid: child.pid ?? 0,
    url,
    connect,
    stop: () => {
      stopping = true;
      return stopProcess(child, 60_000);
    },
  };
}

async function waitUntilUp(
  name: string,
  child: ChildProcess,
  connect: () => Promise<mysql.Connection>,
  errorLog: string,
): Promise<void> {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = await readFile(errorLog, "utf8").catch(() => "");
      throw new Error(
        `${name}: mariadbd exited (${child.exitCode ?? child.signalCode}):\n${log.slice(-2000)}`,
      );
    }
    try {
      const connection = await connect();
      await connection.end();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${name}: mariadbd did not accept connections within 120 s (see ${errorLog})`);
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
