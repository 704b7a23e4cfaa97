import pMemoize from "p-memoize";
import type { AccountCheck } from "../../ports/access-check";
import type { CleanupDeps } from "../cleanup/cleanup-deps";
import type { Refusal } from "../cleanup/refusal";
import { type AccessReport, accessRefusal, accessReport } from "./account-access";

type AccessDeps = Pick<CleanupDeps, "account" | "loadProbe" | "settings">;
type Prove = (deps: AccessDeps, table: string) => Promise<AccessReport>;

/** One memo per account (so per process and pool), keyed by table and the throttles the settings switch on. */
const proofs = new WeakMap<AccountCheck, Prove>();

/**
 * Whether the account a cleanup task runs as may do everything cleaning
 * `table` relies on (accessReport: delete its rows, see every foreign key
 * that references it and its DELETE triggers, read each referencing table,
 * the signal of each throttle switched on); the refusal requireAccess words
 * when it may not, undefined when it may.
 *
 * A full proof is kept for the life of the process, per account and table,
 * so only a process's first task of a table pays for it; a shortfall is not
 * kept, so a grant made after a refusal counts at the next task. A grant
 * revoked after the proof is not seen here: the delete itself then fails on
 * the server's refusal, under the chunk's lock, before any row of it goes.
 */
export async function taskAccessRefusal(deps: AccessDeps, table: string): Promise<Refusal | undefined> {
  return accessRefusal(table, await proveOf(deps.account)(deps, table));
}

function proveOf(account: AccountCheck): Prove {
  const known = proofs.get(account);
  if (known) return known;
  const prove = pMemoize<Prove, string>(
    (deps, table) => accessReport(deps, table, { copy: false, cleanup: true }),
    {
      cacheKey: ([{ settings }, table]) =>
        JSON.stringify([
          table,
          settings.maxReplicaLagSeconds > 0,
          settings.maxRedoPercent > 0,
          settings.maxHistoryLength > 0,
        ]),
      shouldCache: (report) => report.checks.every((check) => check.ok),
    },
  );
  proofs.set(account, prove);
  return prove;
}
