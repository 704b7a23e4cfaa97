import type { AccessCheck, AccountCheck } from "../../ports/access-check";
import type { MysqlPool } from "./create-mysql-pool";
import { readDeleteSideEffects } from "./delete-side-effects";
import { grantStatement, qualifiedName } from "./privilege-refusal";
import { quoteIdentifier } from "./quote-identifier";
import { type ServerFacts, serverFactsOf, serverLabel } from "./server-facts";
import { referencingKeysQuery, triggerGrantsQuery } from "./side-effect-queries";

/**
 * AccountCheck over MySQL or MariaDB. Each check is a probe that reads and
 * changes nothing (`SELECT ... LIMIT 0`, `EXPLAIN DELETE ... WHERE FALSE`,
 * which both servers check like the statement itself, and the read of InnoDB's
 * dictionary the cleanup makes), except TRIGGER, which no statement reveals:
 * the account's own grants are read for it.
 */
export function createMysqlAccountCheck(pool: MysqlPool): AccountCheck {
  const facts = serverFactsOf(pool);

  /** `ok` when `sql` runs; the server's refusal otherwise. */
  async function probe(sql: string, values: unknown[] = []): Promise<{ ok: boolean; detail?: string }> {
    try {
      await pool.query({ sql, rowsAsArray: true }, values);
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: (error as Error).message };
    }
  }

  function check(
    server: ServerFacts,
    part: AccessCheck["for"],
    need: string,
    privilege: string,
    on: string,
    result: { ok: boolean; detail?: string },
  ): AccessCheck {
    const named = on === "*.*" ? privilege : `${privilege} ON ${on}`;
    return result.ok
      ? { for: part, need, privilege: named, ok: true, ...(result.detail ? { detail: result.detail } : {}) }
      : {
          for: part,
          need,
          privilege: named,
          ...result,
          grant: grantStatement(privilege, on, server.account),
        };
  }

  return {
    async describe() {
      const server = await facts();
      return { account: server.account, server: serverLabel(server) };
    },

    async copy(table) {
      const server = await facts();
      const name = qualifiedName(server.database, table);
      const read = await probe(`SELECT 1 FROM ${quoteIdentifier(table)} LIMIT 0`);
      return [check(server, "copy", `read ${name}`, "SELECT", name, read)];
    },

    async cleanup(table) {
      const server = await facts();
      const name = qualifiedName(server.database, table);
      const keys = referencingKeysQuery(server, table);
      const grants = triggerGrantsQuery(server, table);
      const [remove, dictionary, triggerGrants] = await Promise.all([
        probe(`EXPLAIN DELETE FROM ${quoteIdentifier(table)} WHERE FALSE`),
        probe(keys.sql, [...keys.values]),
        pool.query({ sql: grants.sql, rowsAsArray: true }, [...grants.values]),
      ]);
      const triggersVisible = Number((triggerGrants[0] as unknown[][])[0]?.[0] ?? 0) > 0;
      const checks = [
        check(server, "cleanup", `delete rows of ${name}`, "DELETE", name, remove),
        check(
          server,
          "cleanup",
          `see every foreign key that references ${name}, in any database`,
          "PROCESS",
          "*.*",
          {
            ...dictionary,
            ...(dictionary.ok ? { detail: "InnoDB's dictionary" } : {}),
          },
        ),
        check(server, "cleanup", `see the DELETE triggers of ${name}`, "TRIGGER", name, {
          ok: triggersVisible,
          ...(triggersVisible ? {} : { detail: "no grant of the account itself gives TRIGGER on the table" }),
        }),
      ];
      if (!dictionary.ok || !triggersVisible) return checks;
      return [...checks, ...(await referencingTableChecks(server, table))];
    },
  };

  /** Counting the references of a key reads its table: SELECT on each table that references this one. */
  async function referencingTableChecks(server: ServerFacts, table: string): Promise<AccessCheck[]> {
    const { referencingKeys } = await readDeleteSideEffects(pool, server, table);
    const children = new Map<string, string[]>();
    for (const key of referencingKeys) {
      const child = qualifiedName(key.childSchema, key.childTable);
      children.set(child, [...(children.get(child) ?? []), key.constraint]);
    }
    return Promise.all(
      [...children].map(async ([child, constraints]) =>
        check(
          server,
          "cleanup",
          `count the rows of ${child} that reference it (${constraints.join(", ")})`,
          "SELECT",
          child,
          await probe(`SELECT 1 FROM ${child} LIMIT 0`),
        ),
      ),
    );
  }
}
