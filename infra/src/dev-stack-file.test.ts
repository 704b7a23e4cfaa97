import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { type ConfigSource, readStackConfig } from "./config/stack-config";
import { readStackFile } from "./testing/stack-file";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const devFile = path.join(repoRoot, "Pulumi.dev.yaml");
const example = readFileSync(path.join(repoRoot, "infra/stack.example.yaml"), "utf8");
/** The example's first line: CI deploys no stack whose file holds it (.github/workflows/deploy.yml). */
const marker = example.split("\n")[0] as string;

function source(values: Record<string, string>): ConfigSource {
  return {
    get: (key) => values[key],
    getSecret: (key) => (values[key] === undefined ? undefined : pulumi.secret(values[key])),
  };
}

/** The keys of `file` in `namespace`, without it; values `pulumi config set --secret` encrypted are left out. */
function inNamespace(file: Record<string, string>, namespace: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(file)
      .filter(([key, value]) => key.startsWith(`${namespace}:`) && !value.startsWith('{"secure":'))
      .map(([key, value]) => [key.slice(namespace.length + 1), value]),
  );
}

describe("Pulumi.dev.yaml, the dev stack's settings, edited in place", () => {
  test("sits at the repository root beside Pulumi.yaml, where Pulumi reads stack dev's settings", () => {
    expect(existsSync(path.join(repoRoot, "Pulumi.yaml"))).toBe(true);
    expect(existsSync(devFile)).toBe(true);
  });

  test("while its first line is the example's marker, it is the example word for word", () => {
    const text = readFileSync(devFile, "utf8");
    expect(marker).toMatch(/^# table-archiver: example stack settings/);
    // Without the marker it holds a user's own settings, which may differ from the example.
    if (text.split("\n")[0] === marker) expect(text).toBe(example);
  });

  test("reads as a stack configuration the program accepts", () => {
    const file = readStackFile(devFile);
    const config = readStackConfig(
      // The password is set with `pulumi config set --secret`, never written into the file as it is.
      source({ mysqlPassword: "set with --secret", ...inNamespace(file, "table-archiver") }),
      source(inNamespace(file, "gcp")),
    );
    expect(config.project).toBe(file["gcp:project"]);
  });
});
