import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import { createTestAccount, DOCUMENTED_GRANTS, type TestAccount } from "../../testing/archiver-account";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlLoadProbe } from "./mysql-load-probe";

// What reading a heartbeat takes of the account, on a real server: the test server is its own primary and
// "replica" here (it is not replicating, but a heartbeat table needs no replication to be read or refused).

let shop: TestDatabase;
let percona: TestDatabase;
let account: TestAccount;
let primary: MysqlPool;

beforeAll(async () => {
  shop = await createTestDatabase("archiver_shop");
  percona = await createTestDatabase("archiver_percona");
  await percona.connection.query(`CREATE TABLE heartbeat (ts varchar(26) NOT NULL,
      server_id int unsigned NOT NULL PRIMARY KEY) ENGINE=InnoDB;
    INSERT INTO heartbeat VALUES (DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%f'), @@server_id)`);
  // The cleanup's documented grants, on the shop's database only: nothing on the heartbeat's.
  account = await createTestAccount(shop.name, DOCUMENTED_GRANTS.cleanup(shop.name));
  primary = createMysqlPool({ url: account.url, password: undefined });
});

afterAll(async () => {
  await primary?.end();
  await account?.drop();
  await Promise.allSettled([shop?.drop(), percona?.drop()]);
});

function probe() {
  return createMysqlLoadProbe({
    primary,
    replicaUrls: [account.url],
    heartbeatTable: `${percona.name}.heartbeat`,
  });
}

describe("the heartbeat's privilege", () => {
  it("without SELECT on the table: refused with its GRANT, and accessChecks says what is missing", async () => {
    const table = `\`${percona.name}\`.\`heartbeat\``;
    const grant = `GRANT SELECT ON ${table} TO ${account.account};`;
    const denied = probe();
    try {
      const error = await denied.replicaLags().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RefusalError);
      expect((error as RefusalError).reason).toBe("privilege");
      expect((error as Error).message).toContain(`without SELECT ON ${table} on that replica`);
      expect((error as Error).message).toContain(grant);
      const checks = await denied.accessChecks({ replicaLag: true, redo: false, historyLength: false });
      expect(checks).toEqual([expect.objectContaining({ for: "replica-lag throttle", ok: false, grant })]);
    } finally {
      await denied.close();
    }
  });

  it("with it: the lag is the heartbeat's age, and the check passes without SLAVE MONITOR", async () => {
    await account.change([`GRANT SELECT ON \`${percona.name}\`.\`heartbeat\` TO {account}`]);
    const granted = probe();
    try {
      const [lag] = await granted.replicaLags();
      expect(lag?.seconds).toBeTypeOf("number");
      const [check] = await granted.accessChecks({ replicaLag: true, redo: false, historyLength: false });
      expect(check).toMatchObject({
        ok: true,
        privilege: `SELECT ON \`${percona.name}\`.\`heartbeat\`, on the replica`,
      });
    } finally {
      await granted.close();
    }
  });
});
