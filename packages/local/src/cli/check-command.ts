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
  if (options.json) {
    writeLine(io.stdout, JSON.stringify({ ...report, ok }));
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
  writeLine(
    io.stdout,
    ok
      ? `the account has everything ${options.cleanup ? "copy and cleanup" : "a copy"} of ${options.table} need`
      : "the account lacks what is marked MISSING; run the fix statements as an administrator",
  );
  return ok ? EXIT.ok : EXIT.failed;
}
