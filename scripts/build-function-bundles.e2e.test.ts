import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { NEVER_BUNDLED } from "./build-function";
import { FUNCTIONS, type FunctionKey, repoRoot, served, servedFunctions } from "./testing/served-functions";

// What each built bundle holds and loads, as the Cloud Functions runtime would install it; the requests the
// served functions answer: build-function.e2e.test.ts.
const run = promisify(execFile);

beforeAll(servedFunctions.start, 120_000);
afterAll(servedFunctions.stop);

describe("each bundle", () => {
  test("is self-contained: the runtime installs only its listed dependencies, and nothing points into the workspace", () => {
    for (const [key, s] of Object.entries(served)) {
      const manifest = JSON.parse(readFileSync(path.join(s.dir, "package.json"), "utf8"));
      expect(manifest, key).toMatchObject({ type: "module", main: "index.js", engines: { node: "22" } });
      expect(Object.keys(manifest.dependencies), key).toEqual([...FUNCTIONS[key as FunctionKey].installs]);
      for (const version of Object.values(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(readdirSync(path.join(s.dir, "node_modules"))).toEqual(["@google-cloud"]);
      const files = readdirSync(s.dir, { recursive: true, encoding: "utf8" }).filter((f) =>
        f.endsWith(".js"),
      );
      for (const file of files.filter((f) => !f.startsWith("node_modules"))) {
        expect(readFileSync(path.join(s.dir, file), "utf8"), file).not.toContain(repoRoot);
      }
    }
  });

  test("loads every chunk with only its runtime dependencies installed, except those that need a native module production never uses", async () => {
    for (const [key, s] of Object.entries(served)) {
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", IMPORT_EVERY_CHUNK], {
        cwd: s.dir,
        env: { PATH: process.env.PATH ?? "" },
      });
      const outcomes = JSON.parse(stdout) as Record<string, string>;
      expect(outcomes["index.js"], key).toBe("loaded");
      const failed = Object.entries(outcomes).filter(([, outcome]) => outcome !== "loaded");
      for (const [chunk, outcome] of failed) {
        expect(
          NEVER_BUNDLED.some((name) => outcome.includes(`Cannot find package '${name}'`)),
          `${key} ${chunk}: ${outcome}`,
        ).toBe(true);
      }
      const loaded = Object.keys(outcomes).length - failed.length;
      // The reader's chunks (the BigQuery client, for rebuildSet) need nothing native: all of them load.
      if (key === "reader") expect(failed, key).toEqual([]);
      else expect(loaded, key).toBeGreaterThan(5);
    }
  });
});

/** Imports index.js and every chunk of the bundle in the working directory; prints each outcome. */
const IMPORT_EVERY_CHUNK = `
import { existsSync, readdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
const outcomes = {};
const chunks = existsSync("chunks") ? readdirSync("chunks") : [];
for (const file of ["index.js", ...chunks.map((chunk) => "chunks/" + chunk)]) {
  try {
    await import(pathToFileURL(file).href);
    outcomes[file] = "loaded";
  } catch (error) {
    outcomes[file] = String(error?.message ?? error).split("\\n")[0];
  }
}
console.log(JSON.stringify(outcomes));
process.exit(0);
`;
