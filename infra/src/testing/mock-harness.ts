import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { runWithMocks } from "./pulumi-mocks";

/**
 * Runs a built Pulumi program under mocks in this (fresh) process, loading it
 * the way Pulumi's Node.js language host does for an ES module package: a
 * dynamic import of `main`, with the project directory as working directory.
 * Usage: node mock-harness.mjs <main.js> <project dir> <config.json>
 * where config.json is `{ "config": {...}, "secretKeys": [...] }`.
 * Prints `MOCK_RUN <json>` with the registered resources and stack outputs.
 */
const [main, projectDir, configFile] = process.argv.slice(2);
if (!main || !projectDir || !configFile) {
  console.error("usage: mock-harness <main.js> <project dir> <config.json>");
  process.exit(2);
}
const { config, secretKeys } = JSON.parse(readFileSync(configFile, "utf8")) as {
  config: Record<string, string>;
  secretKeys?: string[];
};
process.chdir(projectDir);
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
