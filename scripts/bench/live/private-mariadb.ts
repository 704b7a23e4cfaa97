import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort, prepareMariaDbFiles, waitUntilUp } from "@table-archiver/core/testing";
import mysql from "mysql2/promise";
import { startProcess, stopProcess } from "./child-processes";

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
 * A MariaDB server of the bench's own, laid out as the tests' private servers
 * are (prepareMariaDbFiles: a fresh data directory, `mariadbd --no-defaults`
 * on a free loopback port, never the shared server on 3306, and the `bench`
 * account), started through the bench's process registry so that Ctrl-C ends
 * it, pinned to one CPU when asked.
 */
export async function startPrivateMariaDb(options: MariaDbOptions): Promise<PrivateMariaDb> {
  const dir = join(options.baseDir, options.name);
  const files = await prepareMariaDbFiles(dir, BENCH_USER);
  const port = await freePort();
  const serverArgs = files.args(port, options.serverId, options.primary);
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
    void readFile(files.errorLog, "utf8")
      .catch(() => "")
      .then((log) =>
        options.onUnexpectedExit?.(
          options.name,
          `exit ${code ?? signal}\n${log.split("\n").slice(-60).join("\n")}`,
        ),
      );
  });
  await waitUntilUp(options.name, child, connect, files.errorLog, 120_000);
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
