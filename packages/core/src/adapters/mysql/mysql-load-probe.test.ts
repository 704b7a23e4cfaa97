import { describe, expect, it } from "vitest";
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

const parseError = Object.assign(new Error("You have an error in your SQL syntax"), { errno: 1064 });

describe("createMysqlLoadProbe", () => {
  it("falls back to SHOW SLAVE STATUS on servers that do not know SHOW REPLICA STATUS, once", async () => {
    const replica = fakePool((sql) =>
      sql === "SHOW REPLICA STATUS" ? parseError : [{ Seconds_Behind_Master: 7, Slave_SQL_Running: "Yes" }],
    );
    const probe = createMysqlLoadProbe({
      primary: fakePool(() => []),
      replicaUrls: ["mysql://user:secret@replica-a:3307"],
      connect: () => replica,
    });
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 7 }]);
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-a:3307", seconds: 7 }]);
    expect(replica.asked).toEqual(["SHOW REPLICA STATUS", "SHOW SLAVE STATUS", "SHOW SLAVE STATUS"]);
  });

  it("reads Seconds_Behind_Source, and the largest lag of a multi-source replica", async () => {
    const probe = createMysqlLoadProbe({
      primary: fakePool(() => []),
      replicaUrls: ["mysql://replica-b"],
      connect: () => fakePool(() => [{ Seconds_Behind_Source: 3 }, { Seconds_Behind_Source: "12" }]),
    });
    expect(await probe.replicaLags()).toEqual([{ replica: "replica-b:3306", seconds: 12 }]);
  });

  it("answers null with a reason, never its credentials, when lag cannot be known", async () => {
    const stopped = fakePool(() => [
      { Seconds_Behind_Master: null, Slave_IO_Running: "No", Slave_SQL_Running: "No" },
    ]);
    const down = fakePool(() => Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const pools: Record<string, MysqlPool> = {
      "mysql://u:pw@stopped": stopped,
      "mysql://u:pw@down": down,
      "mysql://u:pw@primary-only": fakePool(() => []),
    };
    const probe = createMysqlLoadProbe({
      primary: fakePool(() => []),
      replicaUrls: Object.keys(pools),
      connect: (url) => pools[url] as MysqlPool,
    });
    const lags = await probe.replicaLags();
    expect(lags.map((lag) => [lag.replica, lag.seconds])).toEqual([
      ["stopped:3306", null],
      ["down:3306", null],
      ["primary-only:3306", null],
    ]);
    expect(lags.map((lag) => lag.reason)).toEqual([
      "replication not running (IO No, SQL No)",
      "unreachable: connect ECONNREFUSED",
      "not a replica",
    ]);
    expect(JSON.stringify(lags)).not.toContain("pw");
  });

  it("passes MYSQL_PASSWORD only to replicas whose URL has none", async () => {
    const passwords: (string | undefined)[] = [];
    const probe = createMysqlLoadProbe({
      primary: fakePool(() => []),
      replicaUrls: ["mysql://u@a", "mysql://u:own@b"],
      password: "from-env",
      connect: (_url, password) => {
        passwords.push(password);
        return fakePool(() => [{ Seconds_Behind_Source: 0 }]);
      },
    });
    await probe.replicaLags();
    expect(passwords).toEqual(["from-env", undefined]);
  });

  it("reads MariaDB's checkpoint age against the log file size, the capacity once", async () => {
    const primary = fakePool((sql) =>
      sql.startsWith("SHOW GLOBAL VARIABLES")
        ? [["innodb_log_file_size", "100663296"]]
        : [["Innodb_checkpoint_age", "50331648"]],
    );
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.redoFill()).toEqual({
      checkpointAgeBytes: 50331648,
      capacityBytes: 100663296,
      percent: 50,
    });
    await probe.redoFill();
    expect(primary.asked.filter((sql) => sql.startsWith("SHOW GLOBAL VARIABLES"))).toHaveLength(1);
  });

  it("reads MySQL 8's checkpoint age metric against innodb_redo_log_capacity", async () => {
    const primary = fakePool((sql) => {
      if (sql.startsWith("SHOW GLOBAL VARIABLES"))
        return [
          ["innodb_log_file_size", "50331648"],
          ["innodb_redo_log_capacity", "104857600"],
        ];
      if (sql.startsWith("SHOW GLOBAL STATUS")) return [];
      return [[26214400]];
    });
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.redoFill()).toMatchObject({ capacityBytes: 104857600, percent: 25 });
    // Once the server has shown it has no such status, later probes ask only for the metric.
    expect(await probe.redoFill()).toMatchObject({ percent: 25 });
    expect(primary.asked.filter((sql) => sql.startsWith("SHOW GLOBAL STATUS"))).toHaveLength(1);
  });

  it("answers null when the server reports no checkpoint age", async () => {
    const primary = fakePool((sql) =>
      sql.startsWith("SHOW GLOBAL VARIABLES")
        ? [
            ["innodb_log_file_size", "50331648"],
            ["innodb_log_files_in_group", "2"],
          ]
        : [],
    );
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.redoFill()).toBeNull();
  });

  it("reads each replica's own redo fill, the capacity once per replica; an unreachable one answers null", async () => {
    const replicaA = fakePool((sql) =>
      sql.startsWith("SHOW GLOBAL VARIABLES")
        ? [["innodb_log_file_size", "100663296"]]
        : [["Innodb_checkpoint_age", "75497472"]],
    );
    const down = fakePool(() => Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const pools: Record<string, MysqlPool> = { "mysql://u:pw@a": replicaA, "mysql://u:pw@down": down };
    const probe = createMysqlLoadProbe({
      primary: fakePool(() => []),
      replicaUrls: Object.keys(pools),
      connect: (url) => pools[url] as MysqlPool,
    });
    const fills = await probe.replicaRedoFills();
    expect(fills).toEqual([
      { replica: "a:3306", fill: { checkpointAgeBytes: 75497472, capacityBytes: 100663296, percent: 75 } },
      { replica: "down:3306", fill: null, reason: "unreachable: connect ECONNREFUSED" },
    ]);
    await probe.replicaRedoFills();
    expect(replicaA.asked.filter((sql) => sql.startsWith("SHOW GLOBAL VARIABLES"))).toHaveLength(1);
    expect(JSON.stringify(fills)).not.toContain("pw");
  });

  it("reads Threads_running from the primary", async () => {
    const primary = fakePool(() => [["Threads_running", "17"]]);
    const probe = createMysqlLoadProbe({ primary, replicaUrls: [] });
    expect(await probe.threadsRunning()).toBe(17);
    expect(primary.asked).toEqual(["SHOW GLOBAL STATUS LIKE 'Threads_running'"]);
  });
});
