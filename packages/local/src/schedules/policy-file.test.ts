import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPolicyFile } from "./policy-file";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "policy-file-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const policy = {
  source_table: "orders",
  destination_table: "archive.orders",
  filter_column: "created_at",
  years_to_migrate: 1,
  months_to_migrate: 0,
  migrate_schedule: "0 1 * * *",
  time_zone: "UTC",
  cleanup: "off",
};

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("readPolicyFile", () => {
  it("reads JSON as YAML, a bare list as `retention:`", async () => {
    const [read] = await readPolicyFile(await file("p.json", JSON.stringify([policy])));
    expect(read).toMatchObject({ source_table: "orders", tasks_enqueued_limit: 20 });
  });

  it("refuses what is not YAML in one line naming the variable, the file and where", async () => {
    const path = await file("bad.yaml", "retention: [\n");
    const error = (await readPolicyFile(path).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { code: string };
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toMatch(new RegExp(`^ARCHIVER_POLICIES=${path}: is not YAML or JSON: .*line \\d+`));
    expect(error.message).not.toContain("\n");
  });

  it("refuses a missing file and an empty one as configuration errors", async () => {
    await expect(readPolicyFile(join(dir, "none.yaml"))).rejects.toThrow(
      /none\.yaml: cannot be read: ENOENT/,
    );
    await expect(readPolicyFile(await file("empty.yaml", ""))).rejects.toThrow(
      /empty\.yaml: retention: must be a list of policies/,
    );
  });
});
