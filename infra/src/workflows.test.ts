import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parse } from "yaml";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const rootScripts = (
  JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: object }
).scripts;

const run = promisify(execFile);

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  needs?: string | string[];
  outputs?: Record<string, string>;
  environment?: string;
  permissions?: Record<string, string>;
  services?: Record<
    string,
    { image: string; ports?: string[]; options?: string; env?: Record<string, string> }
  >;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflowText = (name: string) => readFileSync(path.join(repoRoot, ".github/workflows", name), "utf8");

function workflow(name: string): Workflow {
  const document = parse(workflowText(name)) as Workflow;
  expect(document.jobs).toBeTypeOf("object");
  return document;
}

/** A GitHub Actions expression as it appears in the file, `${{ body }}`. */
const expression = (body: string) => ["$", "{{ ", body, " }}"].join("");
const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run] : []));
const action = (job: Job, name: string) => job.steps.filter((s) => s.uses?.startsWith(`${name}@`));
const indexOf = (job: Job, match: (s: Step) => boolean) => job.steps.findIndex(match);

/** Every `pnpm <script>` a workflow runs must exist, or the step fails only in CI. */
function expectScriptsExist(job: Job) {
  for (const line of runs(job)) {
    for (const [, script] of line.matchAll(/pnpm (?!install)([\w:-]+)/g)) {
      expect(Object.keys(rootScripts), `pnpm ${script}`).toContain(script);
    }
  }
}

/**
 * Every action is pinned to a full commit, not a tag its owner can move, with the release it was in
 * as a comment on the same line; one action, one commit, throughout the file.
 */
function expectPinnedActions(name: string) {
  const lines = workflowText(name)
    .split("\n")
    .filter((line) => /^\s*(- )?uses:/.test(line));
  expect(lines.length).toBeGreaterThan(0);
  const commits = new Map<string, string>();
  for (const line of lines) {
    const pinned = /uses: ([\w.-]+\/[\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$/.exec(line);
    expect(pinned, line.trim()).not.toBeNull();
    const [, action, commit] = pinned as unknown as [string, string, string];
    expect(commits.get(action) ?? commit, line.trim()).toBe(commit);
    commits.set(action, commit);
  }
}

describe("ci.yml", () => {
  const ci = workflow("ci.yml");
  const job = ci.jobs.test as Job;

  test("runs on pushes to main and on pull requests, with read-only permissions", () => {
    expect(ci.on).toMatchObject({ push: { branches: ["main"] } });
    expect(ci.on).toHaveProperty("pull_request");
    expect(ci.permissions).toEqual({ contents: "read" });
  });

  test("tests against MySQL 8 and Redis 7 service containers with health checks", () => {
    expect(job.services?.mysql).toMatchObject({ image: "mysql:8", ports: ["3306:3306"] });
    expect(job.services?.mysql?.env).toMatchObject({ MYSQL_ALLOW_EMPTY_PASSWORD: "yes" });
    expect(job.services?.redis).toMatchObject({ image: "redis:7", ports: ["6379:6379"] });
    for (const service of Object.values(job.services ?? {}))
      expect(service.options).toContain("--health-cmd");
  });

  test("installs from the lockfile, then lints, typechecks, builds the bundles and tests", () => {
    expect(runs(job)).toEqual([
      "pnpm install --frozen-lockfile",
      "pnpm lint",
      "pnpm typecheck",
      "pnpm build",
      "pnpm test",
    ]);
    expect(action(job, "actions/setup-node")[0]?.with).toMatchObject({ "node-version": 22 });
    expectScriptsExist(job);
    expectPinnedActions("ci.yml");
  });
});

describe("deploy.yml", () => {
  const deploy = workflow("deploy.yml");

  test("previews pull requests, deploys dev from main and prod by manual dispatch from main, each only with settings", () => {
    expect(deploy.on).toMatchObject({ pull_request: { branches: ["main"] }, push: { branches: ["main"] } });
    expect(deploy.on).toHaveProperty("workflow_dispatch");
    expect(deploy.permissions).toMatchObject({ "id-token": "write" });

    const expected = {
      preview: {
        if: "github.event_name == 'pull_request' && needs.stacks.outputs.dev == 'true' && github.event.pull_request.head.repo.full_name == github.repository",
        environment: "dev-preview",
        command: "preview",
        stack: "dev",
      },
      "deploy-dev": {
        if: "github.event_name == 'push' && github.ref == 'refs/heads/main' && needs.stacks.outputs.dev == 'true'",
        environment: "dev",
        command: "up",
        stack: "dev",
      },
      "deploy-prod": {
        if: "github.event_name == 'workflow_dispatch' && github.ref == 'refs/heads/main' && needs.stacks.outputs.prod == 'true'",
        environment: "prod",
        command: "up",
        stack: "prod",
      },
    };
    expect(Object.keys(deploy.jobs).sort()).toEqual([...Object.keys(expected), "stacks"].sort());
    for (const [name, want] of Object.entries(expected)) {
      const job = deploy.jobs[name] as Job;
      expect(job.if).toBe(want.if);
      expect(job.needs).toBe("stacks");
      expect(job.environment).toBe(want.environment);
      const [pulumi] = action(job, "pulumi/actions");
      expect(pulumi?.with).toMatchObject({ command: want.command, "stack-name": want.stack });
      expect(pulumi?.env?.PULUMI_ACCESS_TOKEN).toBe(expression("secrets.PULUMI_ACCESS_TOKEN"));
      expect(pulumi?.env?.PULUMI_BACKEND_URL).toBe(expression("vars.PULUMI_BACKEND_URL"));
      expect(existsSync(path.join(repoRoot, String(pulumi?.with?.["work-dir"]), "Pulumi.yaml"))).toBe(true);
    }
  });

  test("every deploying job authenticates to Google with Workload Identity Federation, after building, before Pulumi", () => {
    const accounts: Record<string, string> = {
      preview: "vars.GCP_PREVIEW_SERVICE_ACCOUNT",
      "deploy-dev": "vars.GCP_DEPLOY_SERVICE_ACCOUNT",
      "deploy-prod": "vars.GCP_DEPLOY_SERVICE_ACCOUNT",
    };
    for (const [name, job] of Object.entries(deploy.jobs).filter(
      ([, j]) => action(j, "pulumi/actions").length,
    )) {
      const permissions = job.permissions ?? deploy.permissions;
      expect(permissions).toMatchObject({ "id-token": "write" });
      const [auth] = action(job, "google-github-actions/auth");
      expect(auth?.with, name).toEqual({
        workload_identity_provider: expression("vars.GCP_WORKLOAD_IDENTITY_PROVIDER"),
        service_account: expression(accounts[name] ?? "no account for this job"),
      });
      const install = indexOf(job, (s) => s.run === "pnpm install --frozen-lockfile");
      const build = indexOf(job, (s) => s.run === "pnpm build");
      const authAt = indexOf(job, (s) => Boolean(s.uses?.startsWith("google-github-actions/auth@")));
      const pulumiAt = indexOf(job, (s) => Boolean(s.uses?.startsWith("pulumi/actions@")));
      expect(install).toBeGreaterThanOrEqual(0);
      expect(install).toBeLessThan(build);
      expect(build).toBeLessThan(pulumiAt);
      expect(authAt).toBeLessThan(pulumiAt);
      expectScriptsExist(job);
    }
    expectPinnedActions("deploy.yml");
  });

  test("a pull request's preview runs its code only once approved, as the read-only account, never with dev's deployer", () => {
    const preview = deploy.jobs.preview as Job;
    // Pulumi cannot preview without decrypting the stack's secrets, so the gate is dev-preview's reviewers;
    // dev's environment (and its workload identity binding) accept main only.
    expect(preview.environment).toBe("dev-preview");
    expect(action(preview, "google-github-actions/auth")[0]?.with?.service_account).toBe(
      expression("vars.GCP_PREVIEW_SERVICE_ACCOUNT"),
    );
    expect(JSON.stringify(preview)).not.toContain("GCP_DEPLOY_SERVICE_ACCOUNT");
    expect(action(preview, "pulumi/actions").map((s) => s.with?.command)).toEqual(["preview"]);
    for (const [name, job] of Object.entries(deploy.jobs).filter(([n]) => n !== "preview")) {
      if (job.environment === "dev" || job.environment === "prod")
        expect(job.if, name).toContain("github.ref == 'refs/heads/main'");
    }
  });

  test("pull request previews may comment on the pull request; nothing else may write", () => {
    expect(deploy.jobs.preview?.permissions).toEqual({
      contents: "read",
      "id-token": "write",
      "pull-requests": "write",
    });
    expect(action(deploy.jobs.preview as Job, "pulumi/actions")[0]?.with).toMatchObject({
      "comment-on-pr": true,
    });
    expect(deploy.permissions).toEqual({ contents: "read", "id-token": "write" });
  });

  describe("the stacks it deploys", () => {
    const stacksJob = deploy.jobs.stacks as Job;
    const script = runs(stacksJob)[0] ?? "";
    const example = readFileSync(path.join(repoRoot, "infra/stack.example.yaml"), "utf8");
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), "archiver-stacks-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** Runs the stacks job's script in a checkout holding `files`, and reads the outputs it sets. */
    async function stacksWith(files: Record<string, string>): Promise<Record<string, string>> {
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
      const output = path.join(dir, "github-output");
      writeFileSync(output, "");
      await run("bash", ["-e", "-c", script], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", GITHUB_OUTPUT: output },
      });
      return Object.fromEntries(
        readFileSync(output, "utf8")
          .trim()
          .split("\n")
          .map((line) => line.split("=") as [string, string]),
      );
    }

    test("are found with read access only, from one step's outputs", () => {
      expect(stacksJob.permissions).toEqual({ contents: "read" });
      expect(stacksJob.outputs).toEqual({
        dev: expression("steps.check.outputs.dev"),
        prod: expression("steps.check.outputs.prod"),
      });
      expect(stacksJob.steps.find((s) => s.run)?.id).toBe("check");
    });

    test("none without a committed stack file (a fresh clone)", async () => {
      expect(await stacksWith({})).toEqual({ dev: "false", prod: "false" });
    });

    test("none from the example copied as it is", async () => {
      expect(await stacksWith({ "Pulumi.dev.yaml": example, "Pulumi.prod.yaml": example })).toEqual({
        dev: "false",
        prod: "false",
      });
    });

    test("not dev from the committed Pulumi.dev.yaml while its placeholders stand (the example's first line)", async () => {
      const committed = readFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), "utf8");
      const marked = committed.split("\n")[0] === example.split("\n")[0];
      expect(await stacksWith({ "Pulumi.dev.yaml": committed })).toEqual({
        dev: String(!marked),
        prod: "false",
      });
    });

    test("a stack whose file holds its own settings (the example's first line gone)", async () => {
      const own = example.split("\n").slice(1).join("\n").replace("table-archiver-dev", "acme-archiver-dev");
      expect(await stacksWith({ "Pulumi.dev.yaml": own })).toEqual({ dev: "true", prod: "false" });
    });
  });
});
