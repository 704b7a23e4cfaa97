import path from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { createArchiverStack } from "../archiver-stack";
import { readStackConfig } from "../config/stack-config";
import type { FixtureBundles } from "./fixture-bundles";
import { type MockRun, type RegisteredResource, runWithMocks } from "./pulumi-mocks";
import { readStackFile } from "./stack-file";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const devStack = readStackFile(path.join(repoRoot, "infra/stack.example.yaml"));

/** The MySQL password the tests set with `--secret`; the example stack file holds none. */
export const MYSQL_PASSWORD = "mysql-pw-7f3a";
export const PROJECT = "table-archiver-dev";
export const FUNCTION = "gcp:cloudfunctionsv2/function:Function";

/** `serviceAccount:archiver-<id>@…`, the member string of one of the program's accounts. */
export const sa = (id: string) => `serviceAccount:archiver-${id}@${PROJECT}.iam.gserviceaccount.com`;
/** The Cloud Run service behind a gen2 function, as the mocks name it. */
export const service = (name: string) => `projects/${PROJECT}/locations/europe-west1/services/${name}`;

/**
 * Runs the program under mocks with the example stack file's configuration (infra/stack.example.yaml)
 * plus `overrides` (undefined removes a key), and the MySQL password set as a secret.
 */
export function deployDevStack(
  bundles: FixtureBundles,
  overrides: Record<string, string | undefined> = {},
): Promise<MockRun> {
  const config: Record<string, string> = { ...devStack, "table-archiver:mysqlPassword": MYSQL_PASSWORD };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete config[key];
    else config[key] = value;
  }
  return runWithMocks(
    () =>
      createArchiverStack(
        readStackConfig(new pulumi.Config(), new pulumi.Config("gcp")),
        bundles.directories,
      ),
    { config, secretKeys: ["table-archiver:mysqlPassword", "table-archiver:cleanupReplicaUrls"] },
  );
}

export const ofType = (run: MockRun, type: string) => run.resources.filter((r) => r.type === type);

export function one(run: MockRun, type: string, name: string): RegisteredResource {
  const found = run.resources.find((r) => r.type === type && r.name === name);
  if (!found) throw new Error(`no ${type} named ${name}`);
  return found;
}

/** One of the three functions, by its resource id. */
export const fn = (run: MockRun, key: "entry" | "task-handler" | "reader") =>
  one(run, FUNCTION, `functions-${key}`);
