import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { testMysqlServerUrl, uniqueName } from "./test-services";

/**
 * The grants docs/mysql-source.md lists for the archiver's account, for one
 * database: what copying takes, and what cleaning adds (PROCESS for InnoDB's
 * foreign-key dictionary, TRIGGER to see the table's triggers), and what
 * emptying whole partitions adds (creating, exchanging and dropping a twin
 * table in the database).
 */
export const DOCUMENTED_GRANTS = {
  copy: (database: string) => [`GRANT SELECT ON \`${database}\`.* TO {account}`],
  cleanup: (database: string) => [
    `GRANT SELECT, DELETE, TRIGGER ON \`${database}\`.* TO {account}`,
    "GRANT PROCESS ON *.* TO {account}",
  ],
  partitions: (database: string) => [`GRANT CREATE, DROP, ALTER, INSERT ON \`${database}\`.* TO {account}`],
} as const;

/** A MySQL account made for one test file, holding exactly the grants it was made with. */
export interface TestAccount {
  /** 'user'@'%' as GRANT names it. */
  readonly account: string;
  /** MYSQL_URL of `database` as this account. */
  readonly url: string;
  /** Runs more GRANT or REVOKE statements; `{account}` stands for the account. */
  change(statements: readonly string[]): Promise<void>;
  drop(): Promise<void>;
}

/**
 * Creates an account with a random password and `grants` (statements with
 * `{account}` for its name), as root on the test server. The name comes from
 * uniqueName, so the suite's leak check reports an account a file forgets.
 */
export async function createTestAccount(database: string, grants: readonly string[]): Promise<TestAccount> {
  const user = uniqueName("archiver");
  const account = `'${user}'@'%'`;
  const password = randomBytes(12).toString("hex");
  const run = async (statements: readonly string[]) => {
    const admin = await mysql.createConnection({ uri: testMysqlServerUrl });
    try {
      for (const statement of statements) await admin.query(statement.replaceAll("{account}", account));
    } finally {
      await admin.end();
    }
  };
  await run([`CREATE USER ${account} IDENTIFIED BY '${password}'`, ...grants]);
  const url = new URL(`${testMysqlServerUrl}/${database}`);
  url.username = user;
  url.password = password;
  return {
    account,
    url: url.toString(),
    change: run,
    drop: () => run([`DROP USER IF EXISTS ${account}`]),
  };
}
