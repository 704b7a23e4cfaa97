import { createMysqlPool, type MysqlPool } from "../../adapters/mysql/create-mysql-pool";
import { createMysqlAccountCheck } from "../../adapters/mysql/mysql-account-check";
import { createMysqlDayDeleter } from "../../adapters/mysql/mysql-day-deleter";
import { createMysqlLoadProbe } from "../../adapters/mysql/mysql-load-probe";
import { createMysqlSourceDatabase } from "../../adapters/mysql/mysql-source-database";
import type { CleanupDeps } from "../../domain/cleanup/cleanup-deps";
import type { CleanupMessage } from "../../domain/messages/cleanup-message";
import { createTestAccount, type TestAccount } from "../archiver-account";
import { fx } from "./file-fixture";

// Cleanup run as accounts other than the fixture's documented one: each test makes the account it describes,
// and closeAccounts (the file's afterEach) closes their pools and drops them.

const opened: { account: TestAccount; pool: MysqlPool; close(): Promise<void> }[] = [];

/** The fixture's cleanup deps with source, deleter, account check and load probe as a new account with `grants`. */
export async function depsAs(
  grants: readonly string[],
  options: {
    /** Watch this same server, reached as the account, as the replica of the replica-lag throttle. */
    readonly selfAsReplica?: boolean;
    readonly settings?: Partial<CleanupDeps["settings"]>;
  } = {},
): Promise<{ deps: CleanupDeps; account: TestAccount }> {
  const account = await createTestAccount(fx.db.name, grants);
  return { deps: connectAs(account, options), account };
}

/** Cleanup deps as an existing account over a new pool: what another process of the same account sees. */
export function connectAs(account: TestAccount, options: Parameters<typeof depsAs>[1] = {}): CleanupDeps {
  const pool = createMysqlPool({ url: account.url, password: undefined });
  const loadProbe = createMysqlLoadProbe({
    primary: pool,
    replicaUrls: options.selfAsReplica ? [account.url] : [],
  });
  opened.push({ account, pool, close: () => loadProbe.close() });
  return fx.deps({
    source: createMysqlSourceDatabase(pool),
    deleter: createMysqlDayDeleter(pool),
    account: createMysqlAccountCheck(pool),
    loadProbe,
    ...(options.settings ? { settings: options.settings } : {}),
  });
}

export async function closeAccounts(): Promise<void> {
  const closing = opened.splice(0);
  for (const { pool, close } of closing) await Promise.allSettled([close(), pool.end()]);
  for (const account of new Set(closing.map((open) => open.account))) await account.drop();
}

/** A cleanup message of `table` by created_at. */
export function cleanupOf(table: string, dryRun: boolean): CleanupMessage {
  return {
    clean_table: table,
    filter_column: "created_at",
    dry_run: dryRun,
    recopy_changed_days: false,
    allow_delete_triggers: false,
    exchange_partitions: true,
  };
}
