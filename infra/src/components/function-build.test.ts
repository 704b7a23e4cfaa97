import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { deployDevStack, PROJECT, sa } from "../testing/deploy-dev-stack";
import { createFixtureBundles, type FixtureBundles } from "../testing/fixture-bundles";
import { MOCK_PROJECT_NUMBER } from "../testing/pulumi-mocks";

// What the builder account, which runs the functions' builds and so the install scripts of their
// dependencies, may reach; every grant of the program: archiver-access.test.ts.

let bundles: FixtureBundles;
beforeAll(() => {
  bundles = createFixtureBundles();
});
afterAll(() => bundles.remove());

const STAGING = `projects/_/buckets/gcf-v2-sources-${MOCK_PROJECT_NUMBER}-europe-west1`;

/**
 * Whether an IAM condition lets a request on `resource` through. Understands the only CEL the program
 * writes, `resource.name == "…"` and `resource.name.startsWith("…")` joined by `||`, and refuses any other.
 */
function allows(expression: string, resource: string): boolean {
  return expression.split(" || ").some((term) => {
    const equals = /^resource\.name == "([^"]*)"$/.exec(term);
    const prefix = /^resource\.name\.startsWith\("([^"]*)"\)$/.exec(term);
    if (equals) return resource === equals[1];
    if (prefix) return resource.startsWith(prefix[1] as string);
    throw new Error(`unexpected condition term: ${term}`);
  });
}

describe("the builder account", () => {
  test("holds no storage role on the whole project: it reads sources from Cloud Functions' staging bucket only", async () => {
    const run = await deployDevStack(bundles);
    const builder = run.resources.filter((r) => /iam/i.test(r.type) && r.inputs.member === sa("builder"));
    expect(builder.map((r) => r.inputs.role).sort()).toEqual([
      "roles/artifactregistry.writer",
      "roles/logging.logWriter",
      "roles/storage.objectViewer",
    ]);
    const storage = builder.filter((r) => String(r.inputs.role).startsWith("roles/storage."));
    expect(storage).toHaveLength(1);
    for (const grant of storage) {
      expect(grant.inputs.project, grant.name).toBe(PROJECT);
      const expression = String(grant.inputs.condition?.expression);
      const reads = (resource: string) => allows(expression, resource);
      // The bucket (objects.list), its objects, and its customer-managed-key variant.
      expect(reads(STAGING)).toBe(true);
      expect(reads(`${STAGING}/objects/archiver-entry/function-source.zip`)).toBe(true);
      expect(reads(`${STAGING}-5f2c9a/objects/function-source.zip`)).toBe(true);
      // Nothing else of the project: another region's staging bucket, the Pulumi state, the project.
      expect(reads(`${STAGING}0/objects/function-source.zip`)).toBe(false);
      expect(reads(`projects/_/buckets/${PROJECT}-pulumi-state/objects/.pulumi/stacks/dev.json`)).toBe(false);
      expect(reads(`projects/${PROJECT}`)).toBe(false);
    }
  });
});
