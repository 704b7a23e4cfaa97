import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { CliRun } from "./run-captured";

/** bin/archiver.mjs: what `pnpm archiver` runs, the bundle in dist/cli (built first when stale). */
export const launcher = fileURLToPath(new URL("../../../bin/archiver.mjs", import.meta.url));
/** The bundle itself. */
export const bundle = fileURLToPath(new URL("../../../dist/cli/archiver.js", import.meta.url));
const run = promisify(execFile);

/** Builds the bundle if a source is newer than it, so later runs print no build line on stderr. */
export async function buildIfStale(): Promise<void> {
  await run(process.execPath, [launcher, "--help"], { timeout: 120_000 });
}

/**
 * Runs `archiver <argv>` from the bundle, as the launcher does once the
 * bundle is current: in a process of its own, with only `env` (and PATH) and
 * `cwd` (a scratch folder, so no .env applies), its output in pipes. The
 * bundle, not the launcher: a source edited while the tests run would make
 * the launcher rebuild and say so on stderr.
 */
export async function runBuilt(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bundle, ...argv], {
      env: { PATH: process.env.PATH ?? "", ...env },
      cwd,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}
