import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { describe, expect, test } from "vitest";

/**
 * The SDKs a function must not load unless config selects them: createRuntime
 * and openMysqlPool import them on demand. An entry point that imports one at
 * the top would put it on every cold start of every bundle that uses it.
 */
const LAZY_SDKS = [
  "@duckdb/node-api",
  "@google-cloud/bigquery",
  "@google-cloud/tasks",
  "@google-cloud/cloud-sql-connector",
];
/** Entry points that are the driver (or test support for it), so they may load it on import. */
const HEAVY = new Set(["./duckdb", "./bigquery", "./bigquery/testing", "./testing"]);

const coreDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../packages/core");
const exportsMap = (
  JSON.parse(readFileSync(path.join(coreDir, "package.json"), "utf8")) as {
    exports: Record<string, string>;
  }
).exports;

/** The packages `entry` imports before any of its code runs: its static imports, followed through core's own files. */
async function staticPackages(entry: string): Promise<string[]> {
  const { metafile } = await build({
    absWorkingDir: coreDir,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const inputs: Metafile["inputs"] = metafile.inputs;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (input: string) => {
    if (seen.has(input)) return;
    seen.add(input);
    for (const imported of inputs[input]?.imports ?? []) {
      if (imported.kind === "dynamic-import") continue;
      if (imported.external) packages.add(imported.path);
      else visit(imported.path);
    }
  };
  visit(path.relative(coreDir, path.resolve(coreDir, entry)).split(path.sep).join("/"));
  expect(seen.size, `esbuild found no inputs for ${entry}`).toBeGreaterThan(1);
  return [...packages];
}

describe("core's entry points", () => {
  const light = Object.entries(exportsMap).filter(([subpath]) => !HEAVY.has(subpath));

  test.each(light)("%s loads no cloud or DuckDB SDK on import", async (_subpath, file) => {
    const loaded = await staticPackages(file);
    expect(
      loaded.filter((name) => LAZY_SDKS.some((sdk) => name === sdk || name.startsWith(`${sdk}/`))),
    ).toEqual([]);
  });

  test("the check sees a driver an entry point imports at the top", async () => {
    expect(await staticPackages(exportsMap["./duckdb"] as string)).toContain("@duckdb/node-api");
  });
});
