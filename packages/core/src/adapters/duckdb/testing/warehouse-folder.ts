import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A temporary folder for the warehouse files a test file makes: made in the
 * file's beforeAll, removed with everything in it in its afterAll. vitest
 * gives each test file its own instance of this module, so each file has its
 * own folder.
 */
export let folder: string;

export const warehouseFolder = {
  async make(): Promise<void> {
    folder = await mkdtemp(join(tmpdir(), "duckdb-warehouse-"));
  },
  async remove(): Promise<void> {
    await rm(folder, { recursive: true, force: true });
  },
};
