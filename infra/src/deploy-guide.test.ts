import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const guide = readFileSync(path.join(repoRoot, "docs/deploy.md"), "utf8");
const example = readFileSync(path.join(repoRoot, "infra/stack.example.yaml"), "utf8");

/** The guide's shell blocks, where a reader copies commands from. */
const shell = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").join("\n");

describe("docs/deploy.md", () => {
  test("enables every API a first deploy, the retention schedules and CI's workload identity need", () => {
    const enable = /gcloud services enable ([\s\S]*?)--project/.exec(shell)?.[1] ?? "";
    // cloudscheduler, logging and monitoring: the retention policies' jobs, metrics and alerts.
    for (const api of [
      "cloudresourcemanager",
      "iamcredentials",
      "sts",
      "cloudbuild",
      "artifactregistry",
      "cloudscheduler",
      "logging",
      "monitoring",
    ]) {
      expect(enable, api).toContain(`${api}.googleapis.com`);
    }
  });

  test("finds the project number with a command, before it is used", () => {
    const lookup = shell.indexOf("PROJECT_NUMBER=$(gcloud projects describe");
    expect(lookup).toBeGreaterThanOrEqual(0);
    expect(shell).toContain("--format='value(projectNumber)'");
    expect(shell.indexOf("$PROJECT_NUMBER")).toBeGreaterThan(lookup);
  });

  test("covers a self-managed backend as well as Pulumi Cloud's token", () => {
    expect(shell).toMatch(/pulumi login "gs:\/\//);
    expect(guide).toContain("PULUMI_ACCESS_TOKEN");
    expect(guide).toContain("PULUMI_BACKEND_URL");
  });

  test("never puts a credential on the command line, nor does the example stack file", () => {
    for (const text of [shell, example]) {
      expect(text).not.toMatch(/config set --secret \w+[ \t]+[^\s#]/);
      expect(text).toContain("pulumi config set --secret mysqlPassword");
    }
  });

  test("walks from the APIs to a dry-run cleanup, in order", () => {
    const steps = [
      "gcloud services enable",
      // Before stack init, which writes the stack's encryption settings into the file a later copy would erase.
      "cp infra/stack.example.yaml Pulumi.dev.yaml",
      "pulumi stack init",
      "pulumi config set --secret mysqlPassword",
      "pulumi up",
      "gcloud pubsub topics publish",
      "gcloud auth print-identity-token",
      '"dry_run": true',
    ].map((step) => shell.indexOf(step));
    expect(steps.every((at) => at >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  test("keeps the section the MySQL grants hang on", () => {
    expect(guide).toContain("\n## The archiver's MySQL account\n");
  });
});
