import pMemoize from "p-memoize";
import type { MysqlPool } from "./create-mysql-pool";
import { mapMysqlError } from "./map-mysql-error";

/** What the privilege checks need to know of the server and the account, read once per pool. */
export interface ServerFacts {
  /** The account the server authenticated (CURRENT_USER()), as GRANT names it: 'user'@'host'. */
  readonly account: string;
  /** The database of MYSQL_URL, where the archived tables are. */
  readonly database: string;
  readonly mariadb: boolean;
  /** VERSION(), for messages. */
  readonly version: string;
  /** lower_case_table_names is 1 or 2: the dictionary holds names in lower case. */
  readonly lowerCaseNames: boolean;
}

/** A pool or one connection of it. */
export type Queryable = Pick<MysqlPool, "query">;

/** Reads the facts on first use and keeps them; a failed read is tried again next time. */
export function serverFactsOf(pool: Queryable): () => Promise<ServerFacts> {
  return pMemoize(() =>
    readServerFacts(pool).catch((error: unknown) => {
      throw mapMysqlError(error);
    }),
  );
}

async function readServerFacts(pool: Queryable): Promise<ServerFacts> {
  const [rows] = await pool.query({
    sql: "SELECT CURRENT_USER(), DATABASE(), VERSION(), @@lower_case_table_names",
    rowsAsArray: true,
  });
  const [user, database, version, lowerCase] = (rows as unknown[][])[0] ?? [];
  const text = String(user ?? "");
  const at = text.lastIndexOf("@");
  return {
    account: `'${text.slice(0, at)}'@'${text.slice(at + 1)}'`,
    database: String(database ?? ""),
    mariadb: /mariadb/i.test(String(version)),
    version: String(version ?? ""),
    lowerCaseNames: Number(lowerCase) !== 0,
  };
}

/** The server in a few words, for reports: "MariaDB 10.11.19" or "MySQL 8.0.36". */
export function serverLabel(facts: ServerFacts): string {
  const number = /^[0-9.]+/.exec(facts.version)?.[0] ?? facts.version;
  return `${facts.mariadb ? "MariaDB" : "MySQL"} ${number}`;
}
