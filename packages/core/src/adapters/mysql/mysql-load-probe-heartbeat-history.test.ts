import { describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { MysqlPool } from "./create-mysql-pool";
import { createMysqlLoadProbe } from "./mysql-load-probe";

/** A pool that answers `answer(sql)` and records what it was asked. */
function fakePool(answer: (sql: string) => unknown): MysqlPool & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async query(options) {
      asked.push(options.sql);
      const result = answer(options.sql);
      if (result instanceof Error) throw result;
      return [result, undefined];
    },
    getConnection: () => Promise.reject(new Error("not used")),
    end: async () => {},
  };
}

const serverError = (errno: number, message: string) => Object.assign(new Error(message), { errno });
const FACTS = [["archiver@%", "shop", "10.11.19-MariaDB", 0]];

/** A probe of one replica whose heartbeat query answers `micros` (or throws it). */
function heartbeatProbe(micros: unknown) {
  const replica = fakePool((sql) => (sql.startsWith("SELECT CURRENT_USER()") ? FACTS : micros));
  const probe = createMysqlLoadProbe({
    primary: fakePool((sql) => (sql === "SELECT @@server_id" ? [[1]] : [])),
    replicaUrls: ["mysql://u:pw@replica-a:3307"],
    heartbeatTable: "percona.heartbeat",
    connect: () => replica,
  });
  return { probe, replica };
}

describe("createMysqlLoadProbe: heartbeat lag", () => {
  it("reads the age of the primary's newest ts against the replica's UTC clock, in fractional seconds, not its status", async () => {
    const { probe, replica } = heartbeatProbe([[734_512]]);
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 0.735 }]);
    expect(replica.asked).toEqual([
      "SELECT TIMESTAMPDIFF(MICROSECOND, CAST(MAX(ts) AS DATETIME(6)), UTC_TIMESTAMP(6)) FROM `percona`.`heartbeat` WHERE server_id = 1",
    ]);
  });

  it("reads pt-heartbeat's legacy table (id, ts: no server_id) whole, asking for server_id only once", async () => {
    const noColumn = serverError(1054, "Unknown column 'server_id' in 'where clause'");
    const { probe, replica } = heartbeatProbe([[200_000]]);
    const answers = [noColumn];
    const query = replica.query.bind(replica);
    replica.query = async (options) => {
      const next = options.sql.includes("WHERE server_id") ? answers.shift() : undefined;
      if (next) {
        replica.asked.push(options.sql);
        throw next;
      }
      return query(options);
    };
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 0.2 }]);
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 0.2 }]);
    expect(replica.asked.map((sql) => sql.includes("WHERE server_id"))).toEqual([true, false, false]);
  });

  it("takes a heartbeat slightly ahead (clocks a little apart) as no lag", async () => {
    const { probe } = heartbeatProbe([[-300_000]]);
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 0 }]);
  });

  it("answers null with the reason for no table, no row, a stale heartbeat and one in another time zone", async () => {
    const cases: [unknown, RegExp][] = [
      [serverError(1146, "Table 'percona.heartbeat' doesn't exist"), /no heartbeat table percona.heartbeat/],
      [serverError(1049, "Unknown database 'percona'"), /no heartbeat table percona.heartbeat/],
      [[[null]], /no heartbeat from the primary \(server_id 1\) in percona.heartbeat/],
      [[[61_000_000]], /heartbeat 61 s old: .* nothing writes it on the primary/],
      [[[-3_600_000_000]], /heartbeat 3600 s ahead of the replica's UTC clock \(.*--utc/],
    ];
    for (const [answer, reason] of cases) {
      const [lag] = await heartbeatProbe(answer).probe.replicaLags();
      expect(lag?.seconds).toBeNull();
      expect(lag?.reason).toMatch(reason);
    }
  });

  it("refuses, naming SELECT on the table and its GRANT, when the account may not read it", async () => {
    const denied = serverError(1142, "SELECT command denied to user 'archiver'@'%' for table 'heartbeat'");
    const { probe } = heartbeatProbe(denied);
    const error = await probe.replicaLags().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RefusalError);
    expect((error as Error).message).toContain(
      "the replica-lag (replica-a:3307) throttle cannot read its signal without SELECT ON `percona`.`heartbeat` on that replica",
    );
    expect((error as Error).message).toContain("GRANT SELECT ON `percona`.`heartbeat` TO 'archiver'@'%';");
    const [check] = await heartbeatProbe(denied).probe.accessChecks({
      replicaLag: true,
      redo: false,
      historyLength: false,
    });
    expect(check).toMatchObject({
      for: "replica-lag throttle",
      need: "read the heartbeat percona.heartbeat on replica replica-a:3307",
      privilege: "SELECT ON `percona`.`heartbeat`, on the replica",
      ok: false,
      grant: "GRANT SELECT ON `percona`.`heartbeat` TO 'archiver'@'%';",
    });
  });
});

describe("createMysqlLoadProbe: history length", () => {
  it("reads MariaDB's Innodb_history_list_length status", async () => {
    const primary = fakePool(() => [["Innodb_history_list_length", "4321"]]);
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.historyLength()).toBe(4321);
    expect(primary.asked).toEqual(["SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'"]);
  });

  it("reads MySQL 8's trx_rseg_history_len metric, asking only for it once the server has shown it has no status", async () => {
    const primary = fakePool((sql) => (sql.startsWith("SHOW GLOBAL STATUS") ? [] : [[98765]]));
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.historyLength()).toBe(98765);
    expect(await probe.historyLength()).toBe(98765);
    expect(primary.asked.filter((sql) => sql.startsWith("SHOW GLOBAL STATUS"))).toHaveLength(1);
    expect(primary.asked[1]).toContain("NAME = 'trx_rseg_history_len' AND STATUS = 'enabled'");
  });

  it("answers null when the server reports neither (metric disabled)", async () => {
    const probe = createMysqlLoadProbe({ primary: fakePool(() => []), replicaUrls: [] });
    expect(await probe.historyLength()).toBeNull();
  });

  it("refuses, naming PROCESS, when the account may not read the metric; accessChecks says so with the GRANT", async () => {
    const primary = fakePool((sql) => {
      if (sql.startsWith("SHOW GLOBAL STATUS")) return [];
      if (sql.startsWith("SELECT CURRENT_USER()")) return FACTS;
      return serverError(1227, "Access denied; you need (at least one of) the PROCESS privilege(s)");
    });
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    await expect(probe.historyLength()).rejects.toThrow(
      /the history throttle cannot read its signal without PROCESS .*GRANT PROCESS ON \*\.\* TO 'archiver'@'%';/,
    );
    expect(await probe.accessChecks({ replicaLag: false, redo: false, historyLength: true })).toEqual([
      {
        for: "history throttle",
        need: "read InnoDB's history list length",
        privilege: "PROCESS",
        ok: false,
        grant: "GRANT PROCESS ON *.* TO 'archiver'@'%';",
      },
    ]);
  });
});
