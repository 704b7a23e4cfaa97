import { runChecked } from "./child-processes";
import { BENCH_USER, type PrivateMariaDb } from "./private-mariadb";

/** The server pt-archiver connects to: a private one of the live bench (its `bench` user), or any by address. */
export type PtServer = Pick<PrivateMariaDb, "port"> & {
  readonly host?: string;
  readonly user?: string;
  readonly password?: string;
};

/** The server at a `mysql://user:password@host:port` URL, as pt-archiver connects to it (root when it names no user). */
export function ptServerAt(url: string): PtServer {
  const server = new URL(url);
  return {
    host: server.hostname,
    port: Number(server.port || "3306"),
    user: decodeURIComponent(server.username) || "root",
    ...(server.password ? { password: decodeURIComponent(server.password) } : {}),
  };
}

/** What a tool did in its phase: the rows it moved and the command that did it. */
export interface ToolRun {
  readonly rows: number;
  readonly seconds: number;
  readonly detail: string;
}

/**
 * The peer, invoked as the issue measured it: 1,000 rows a statement, one
 * commit per statement. pt-archiver keeps the row with the highest key (its
 * --safe-auto-increment default), so it moves one row fewer than the table
 * holds; its own --statistics count is what the rate is computed from.
 */
function ptArgs(server: PtServer, database: string, table: string, where: string): string[] {
  const user = [`u=${server.user ?? BENCH_USER}`, ...(server.password ? [`p=${server.password}`] : [])];
  return [
    "--source",
    // A=utf8mb4: the table's character set; pt-archiver refuses a connection in another.
    [
      `h=${server.host ?? "127.0.0.1"}`,
      `P=${server.port}`,
      ...user,
      `D=${database}`,
      `t=${table}`,
      "A=utf8mb4",
    ].join(","),
    "--where",
    where,
    "--limit",
    "1000",
    "--commit-each",
    "--statistics",
  ];
}

/** `pt-archiver --no-delete --file`: reads every row into a file, deletes nothing. */
export async function ptArchiverCopy(
  server: PtServer,
  target: { database: string; table: string; where: string; file: string },
): Promise<ToolRun> {
  const args = [
    ...ptArgs(server, target.database, target.table, target.where),
    "--no-delete",
    "--file",
    target.file,
  ];
  const result = await runChecked("pt-archiver --no-delete --file", "pt-archiver", args);
  return {
    rows: statistic(result.stdout, "SELECT"),
    seconds: result.seconds,
    detail: `pt-archiver ${args.join(" ")}`,
  };
}

/** `pt-archiver --purge --bulk-delete`: deletes every row, 1,000 to a DELETE. */
export async function ptArchiverPurge(
  server: PtServer,
  target: { database: string; table: string; where: string },
): Promise<ToolRun> {
  const args = [...ptArgs(server, target.database, target.table, target.where), "--purge", "--bulk-delete"];
  const result = await runChecked("pt-archiver --purge", "pt-archiver", args);
  return {
    rows: statistic(result.stdout, "DELETE"),
    seconds: result.seconds,
    detail: `pt-archiver ${args.join(" ")}`,
  };
}

function statistic(output: string, action: string): number {
  const match = new RegExp(`^${action} (\\d+)$`, "m").exec(output);
  if (!match) throw new Error(`pt-archiver printed no ${action} count:\n${output.slice(-1000)}`);
  return Number(match[1]);
}
