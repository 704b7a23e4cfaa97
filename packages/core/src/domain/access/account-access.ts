import type { AccessCheck } from "../../ports/access-check";
import type { CleanupDeps } from "../cleanup/cleanup-deps";
import { type Refusal, refusalError, refuse } from "../cleanup/refusal";

/** What the archiver's account may do for one table's cleanup, as `archiver check` prints it. */
export interface AccessReport {
  /** 'user'@'host' as GRANT names it. */
  readonly account: string;
  readonly server: string;
  readonly checks: readonly AccessCheck[];
}

/**
 * Every privilege a cleanup of `table` relies on: deleting, seeing every
 * foreign key and trigger its safety checks read, reading each referencing
 * table, and the signal of each throttle the settings switch on. With `copy`,
 * reading the table for its copy too.
 */
export async function accessReport(
  deps: Pick<CleanupDeps, "account" | "loadProbe" | "settings">,
  table: string,
  scope: { readonly copy: boolean; readonly cleanup: boolean },
): Promise<AccessReport> {
  const { settings } = deps;
  const [described, copy, cleanup, throttles] = await Promise.all([
    deps.account.describe(),
    scope.copy ? deps.account.copy(table) : [],
    scope.cleanup ? deps.account.cleanup(table) : [],
    scope.cleanup
      ? deps.loadProbe.accessChecks({
          replicaLag: settings.maxReplicaLagSeconds > 0,
          redo: settings.maxRedoPercent > 0,
          historyLength: settings.maxHistoryLength > 0,
        })
      : [],
  ]);
  return { ...described, checks: [...copy, ...cleanup, ...throttles] };
}

/**
 * What the step that plans a cleanup (the entry function, or the CLI) reads
 * itself: the table, as its account may. It deletes nothing and needs no more;
 * each cleanup task proves the rest as its own account (taskAccessRefusal).
 */
export async function planAccessReport(
  deps: Pick<CleanupDeps, "account">,
  table: string,
): Promise<AccessReport> {
  const [described, read] = await Promise.all([deps.account.describe(), deps.account.copy(table)]);
  return { ...described, checks: read.map((check) => ({ ...check, for: "cleanup" as const })) };
}

/**
 * Refuses the whole cleanup when the account lacks any of it: what a check
 * cannot see it would otherwise take as absent (a foreign key whose ON DELETE
 * rule then runs, a trigger, a lagging replica). The message names each
 * missing privilege and the statements that grant them.
 */
export function requireAccess(table: string, report: AccessReport): void {
  const refusal = accessRefusal(table, report);
  if (refusal) throw refusalError(refusal, "clean_table");
}

/** The refusal requireAccess throws, as a value (a cleanup task decides its day by it); undefined when all is granted. */
export function accessRefusal(table: string, report: AccessReport): Refusal | undefined {
  const missing = report.checks.filter((check) => !check.ok);
  if (missing.length === 0) return undefined;
  const needs = missing.map((check) => `${check.need} (${check.for}; needs ${check.privilege})`).join("; ");
  const grants = missing.flatMap((check) => (check.grant ? [check.grant] : []));
  return refuse(
    "privilege",
    `cleanup of "${table}" refused: the archiver's MySQL account cannot ${needs}; nothing was checked ` +
      `or deleted.${grants.length > 0 ? ` Grant it with: ${grants.join(" ")}` : ""}`,
  );
}
