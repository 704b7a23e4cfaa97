import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
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
      // The dev stack file is edited in place, not copied over what stack init writes into it.
      "$EDITOR Pulumi.dev.yaml",
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

  test("links billing and bills the application-default credentials' quota to the project before enabling APIs", () => {
    const link = shell.indexOf('gcloud billing projects link "$PROJECT" --billing-account=');
    const quota = shell.indexOf('gcloud auth application-default set-quota-project "$PROJECT"');
    const enable = shell.indexOf("gcloud services enable");
    expect(link).toBeGreaterThanOrEqual(0);
    expect(quota).toBeGreaterThanOrEqual(0);
    expect(Math.max(link, quota)).toBeLessThan(enable);
  });

  test("gives a deployer who is not Owner Service Account User, which acting as the program's accounts needs", () => {
    const needs = guide
      .slice(guide.indexOf("## What you need"), guide.indexOf("## 1. The project"))
      .replace(/\s+/g, " ");
    expect(needs).toContain("Service Account User (`roles/iam.serviceAccountUser`)");
  });

  test("says to run pulumi up again when a first build meets IAM still propagating", () => {
    expect(guide).toMatch(/IAM is eventually consistent[\s\S]*run `pulumi up` again/);
  });

  test("names the GitHub plans environments and required reviewers need, and an organisation's stack name", () => {
    expect(guide.replace(/\s+/g, " ")).toContain(
      "required reviewers in a private repository need GitHub Enterprise",
    );
    expect(guide).toContain("pulumi stack init my-org/dev");
  });

  test("has prod's commands run with prod's project in the shell variables", () => {
    expect(guide.replace(/\s+/g, " ")).toContain(
      "for prod, set `PROJECT`, `REGION` and `PROJECT_NUMBER` again to prod's project",
    );
  });

  test("keeps the section the MySQL grants hang on", () => {
    expect(guide).toContain("\n## The archiver's MySQL account\n");
  });
});

describe("docs/deploy.md: CI's workload identity", () => {
  const OWNER_ID = "1342004";
  const REPO_ID = "260064828";
  const job = (claims: Record<string, string>) => ({
    repository_owner_id: OWNER_ID,
    repository_id: REPO_ID,
    ref: "refs/heads/main",
    ...claims,
  });

  /** The provider's attribute condition as the guide's commands build it for `environment`. */
  async function condition(environment: string): Promise<string> {
    const lines = shell
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => /^(JOBS=|\[ "\$ENVIRONMENT" = dev \] && JOBS=|CONDITION=)/.test(line));
    expect(lines).toHaveLength(3);
    const script = [`ENVIRONMENT=${environment} OWNER_ID=${OWNER_ID} REPO_ID=${REPO_ID}`, ...lines];
    const { stdout } = await promisify(execFile)("bash", [
      "-e",
      "-c",
      `${script.join("\n")}\nprintf %s "$CONDITION"`,
    ]);
    return stdout;
  }

  test("admits this repository by its numeric ids, never by its name, which another repository can take", async () => {
    const dev = await condition("dev");
    expect(dev).toContain(`assertion.repository_id == '${REPO_ID}'`);
    expect(dev).not.toMatch(/assertion\.repository(_owner)? ==/);
    expect(allows(dev, job({ environment: "dev" }))).toBe(true);
    // A repository re-created under the old name, or another one of the owner, has another id.
    expect(allows(dev, job({ environment: "dev", repository_id: "999" }))).toBe(false);
    expect(allows(dev, job({ environment: "dev", repository_owner_id: "999" }))).toBe(false);
  });

  test("takes dev's and prod's deploys from main only; dev's approved previews from any branch, never for prod", async () => {
    const [dev, prod] = [await condition("dev"), await condition("prod")];
    const branch = { ref: "refs/pull/7/merge" };
    expect(allows(dev, job({ environment: "dev", ...branch }))).toBe(false);
    expect(allows(dev, job({ environment: "dev-preview", ...branch }))).toBe(true);
    expect(allows(dev, job({ environment: "prod" }))).toBe(false);
    expect(allows(prod, job({ environment: "prod" }))).toBe(true);
    expect(allows(prod, job({ environment: "prod", ...branch }))).toBe(false);
    expect(allows(prod, job({ environment: "dev-preview", ...branch }))).toBe(false);
  });

  test("binds the previewer, a read-only account, to dev-preview jobs, and the deployer to its own environment", () => {
    expect(shell).toContain('--role=roles/browser --member="$PREVIEWER"');
    expect(shell).toMatch(
      /pulumi-previewer@[^\n]*\\\n\s*--role=roles\/iam\.workloadIdentityUser --member="\$JOBS_OF\/dev-preview"/,
    );
    expect(shell).toMatch(
      /pulumi-deployer@[^\n]*\\\n\s*--role=roles\/iam\.workloadIdentityUser --member="\$JOBS_OF\/\$ENVIRONMENT"/,
    );
    expect(guide).toContain("`GCP_PREVIEW_SERVICE_ACCOUNT`");
  });
});

/**
 * Whether a CEL attribute condition admits a token with `claims`. Reads only what the guide writes:
 * `assertion.<claim> == '<text>'` joined by `&&` and `||`, with parentheses.
 */
function allows(expression: string, claims: Record<string, string>): boolean {
  const tokens = expression.match(/\(|\)|&&|\|\||==|assertion\.\w+|'[^']*'/g) ?? [];
  expect(tokens.join(""), "a condition of only those terms").toBe(expression.replace(/\s+/g, ""));
  let at = 0;
  const next = () => tokens[at++] as string;
  const or = (): boolean => {
    let value = and();
    while (tokens[at] === "||") {
      next();
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = term();
    while (tokens[at] === "&&") {
      next();
      value = term() && value;
    }
    return value;
  };
  const term = (): boolean => {
    if (tokens[at] === "(") {
      next();
      const value = or();
      expect(next()).toBe(")");
      return value;
    }
    const claim = next().replace(/^assertion\./, "");
    expect(next()).toBe("==");
    return claims[claim] === next().slice(1, -1);
  };
  const value = or();
  expect(at).toBe(tokens.length);
  return value;
}
