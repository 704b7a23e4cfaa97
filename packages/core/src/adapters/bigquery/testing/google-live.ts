import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";

/** What the live suites print and report when they cannot run. */
export const NO_GOOGLE_CREDENTIALS = "skipped: no Google credentials";

/**
 * The project the live suites use: GOOGLE_CLOUD_PROJECT, with credentials from
 * GOOGLE_APPLICATION_CREDENTIALS or gcloud's application default credentials
 * file. Undefined when either is missing.
 */
export function googleLiveProject(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const project = env.GOOGLE_CLOUD_PROJECT;
  const credentials =
    env.GOOGLE_APPLICATION_CREDENTIALS ??
    join(homedir(), ".config", "gcloud", "application_default_credentials.json");
  return project && existsSync(credentials) ? project : undefined;
}

/** A suite with one test that prints `reason` and reports itself skipped with it. */
export function describeSkipped(name: string, reason: string): void {
  describe(name, () => {
    it("runs against a real Google Cloud project", (context) => {
      console.log(reason);
      context.skip(reason);
    });
  });
}
