import { accessReport, InvalidInputError, isIdentifier } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import { type CliIo, EXIT, writeLine } from "./cli-io";

/**
 * `archiver check --table T [--cleanup] [--json]`: connects as the configured
 * MySQL account and prints, per capability, whether it has what the archiver
 * needs, with the GRANT statement for what it lacks. Exits 0 when it has
 * everything, 1 otherwise. A cleanup refuses its table on the same checks.
 */
export async function checkCommand(
  runtime: Runtime,
  options: { readonly table: string; readonly cleanup?: boolean; readonly json?: boolean },
  io: CliIo,
): Promise<number> {
  if (!isIdentifier(options.table)) {
    throw new InvalidInputError(
      "table",
      `"${options.table}" is not a valid table name (letters, digits, _, $)`,
    );
  }
  const report = await accessReport(runtime.cleanup, options.table, {
    copy: true,
    cleanup: options.cleanup === true,
  });
  const ok = report.checks.every((check) => check.ok);
  const partitions = options.cleanup ? await partitionCheck(runtime, options.table) : undefined;
  if (options.json) {
    writeLine(io.stdout, JSON.stringify({ ...report, ok, ...(partitions ? { partitions } : {}) }));
    return ok ? EXIT.ok : EXIT.failed;
  }
  writeLine(io.stdout, `account ${report.account} on ${report.server}`);
  for (const check of report.checks) {
    const detail = check.detail ? ` (${check.detail})` : "";
    writeLine(
      io.stdout,
      `${check.ok ? "ok     " : "MISSING"}  ${check.for}: ${check.need}: ${check.privilege}${check.ok ? detail : ""}`,
    );
    if (!check.ok && check.detail) writeLine(io.stdout, `         ${check.detail}`);
    if (check.grant) writeLine(io.stdout, `         fix: ${check.grant}`);
  }
  if (partitions) {
    // Optional: without it a partitioned table is cleaned a day at a time, so it never fails the check.
    writeLine(
      io.stdout,
      `${partitions.ok ? "ok     " : "without"}  partition cleanup (optional): empty whole partitions at once: CREATE, DROP, ALTER, INSERT on the database`,
    );
    if (partitions.grant) writeLine(io.stdout, `         to allow it: ${partitions.grant}`);
  }
  writeLine(
    io.stdout,
    ok
      ? `the account has everything ${options.cleanup ? "copy and cleanup" : "a copy"} of ${options.table} need`
      : "the account lacks what is marked MISSING; run the fix statements as an administrator",
  );
  return ok ? EXIT.ok : EXIT.failed;
}

/**
 * For a table range-partitioned on some column, whether the account may
 * empty its partitions at once (create, exchange and drop a twin table);
 * undefined for any other table.
 */
async function partitionCheck(
  runtime: Runtime,
  table: string,
): Promise<{ readonly ok: boolean; readonly grant?: string } | undefined> {
  const partitioning = await runtime.cleanup.partitions.partitioning(table);
  if (partitioning.kind !== "range") return undefined;
  return runtime.cleanup.partitions.mayExchange(table);
}
