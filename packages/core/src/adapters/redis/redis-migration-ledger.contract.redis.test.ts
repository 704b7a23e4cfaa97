import { describeMigrationLedgerContract } from "../../testing/migration-ledger-contract";
import { deleteTableRecords, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createRedisMigrationLedger } from "./redis-migration-ledger";

describeMigrationLedgerContract("Redis", async () => {
  const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  const used: string[] = [];
  return {
    ledger: createRedisMigrationLedger(redis),
    table() {
      const name = uniqueName("ledger");
      used.push(name);
      return name;
    },
    async cleanup() {
      await deleteTableRecords(redis, used);
      await redis.quit();
    },
  };
});
