import { type CleanupFixture, createCleanupFixture } from "../cleanup-fixture";

/**
 * The test file's cleanup fixture (real MariaDB, Redis and DuckDB, see
 * createCleanupFixture): made in the file's beforeAll, closed in its afterAll.
 * vitest gives each test file its own instance of this module, so each file
 * has its own fixture.
 */
export let fx: CleanupFixture;

export const cleanupFixture = {
  async create(): Promise<void> {
    fx = await createCleanupFixture();
  },
  async close(): Promise<void> {
    await fx?.close();
  },
};
