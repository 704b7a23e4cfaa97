import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { runWithMocks } from "./pulumi-mocks";

/**
 * Runs a built Pulumi program under mocks in this (fresh) process, loading it
 * the way Pulumi's Node.js language host does for an ES module package: a
 * dynamic import of `main`, with main's own folder as working directory (not
 * the project's root), and the root named only by PULUMI_NODEJS_ROOT_DIRECTORY,
 * as the language host passes it on. The caller sets that variable.
 * Usage: node mock-harness.mjs <main.js> <config.json>
 * where config.json is `{ "config": {...}, "secretKeys": [...] }`.
 * Prints `MOCK_RUN <json>` with the registered resources and stack outputs.
 */
const [main, configFile] = process.argv.slice(2).map((arg) => path.resolve(arg));
if (!main || !configFile || !process.env.PULUMI_NODEJS_ROOT_DIRECTORY) {
  console.error("usage: PULUMI_NODEJS_ROOT_DIRECTORY=<project root> mock-harness <main.js> <config.json>");
  process.exit(2);
}
const { config, secretKeys } = JSON.parse(readFileSync(configFile, "utf8")) as {
  config: Record<string, string>;
  secretKeys?: string[];
};
process.chdir(path.dirname(main));
try {
  const run = await runWithMocks(
    async () => {
      const program = (await import(pathToFileURL(main).href)) as Record<string, unknown>;
      return "default" in program ? program.default : { ...program };
    },
    { config, secretKeys: secretKeys ?? [] },
  );
  process.stdout.write(`MOCK_RUN ${JSON.stringify(run)}\n`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
