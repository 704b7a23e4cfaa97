import { RefusalError } from "../../errors";
import { quoteIdentifier } from "./quote-identifier";

/**
 * Server errors that mean "this account may not": ER_DBACCESS_DENIED_ERROR,
 * ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR and
 * ER_SPECIFIC_ACCESS_DENIED_ERROR (a global privilege such as PROCESS).
 */
const ACCESS_DENIED_ERRNOS = new Set([1044, 1142, 1143, 1227]);

export function isAccessDenied(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "number" && ACCESS_DENIED_ERRNOS.has(errno);
}

/** `db`.`table`, quoted, as GRANT and the messages name it. */
export function qualifiedName(database: string, table: string): string {
  return `${quoteIdentifier(database)}.${quoteIdentifier(table)}`;
}

/** The statement that gives `account` `privilege` on `on` (`*.*` for a global one). */
export function grantStatement(privilege: string, on: string, account: string): string {
  return `GRANT ${privilege} ON ${on} TO ${account};`;
}

/**
 * The refusal of a whole cleanup whose safety check the account cannot
 * make: what it could not see would otherwise count as absent.
 */
export function privilegeRefusal(
  table: string,
  what: string,
  privilege: string,
  grant: string,
): RefusalError {
  return new RefusalError(
    `cleanup of "${table}" refused: the archiver's MySQL account cannot ${what} without ${privilege}; ` +
      `nothing was deleted. Grant it with: ${grant}`,
    { field: "clean_table", reason: "privilege" },
  );
}

/** The refusal of a cleanup whose switched-on throttle cannot read its signal. */
export function throttleRefusal(what: string, privilege: string, grant: string): RefusalError {
  return new RefusalError(
    `cleanup refused: the ${what} throttle cannot read its signal without ${privilege}; nothing was deleted. ` +
      `Grant it with: ${grant} (or switch that throttle off)`,
    { reason: "privilege" },
  );
}

/**
 * What reading replica status takes: SLAVE MONITOR on MariaDB 10.5.9 and
 * later (SHOW SLAVE STATUS asks for it by name), REPLICATION CLIENT on MySQL
 * and older MariaDB.
 */
export function replicaMonitorPrivilege(version: string): string {
  const [major = 0, minor = 0, patch = 0] = (/^[0-9.]+/.exec(version)?.[0] ?? "").split(".").map(Number);
  const mariadb = /mariadb/i.test(version);
  const newer = major > 10 || (major === 10 && (minor > 5 || (minor === 5 && patch >= 9)));
  return mariadb && newer ? "SLAVE MONITOR" : "REPLICATION CLIENT";
}
