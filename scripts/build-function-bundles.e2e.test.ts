import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUNDLE_NPMRC, NEVER_BUNDLED, WORKSPACE_LOCK } from "./build-function";
import type { NpmLockfile } from "./npm-lockfile";
import { FUNCTIONS, type FunctionKey, repoRoot, served, servedFunctions } from "./testing/served-functions";
import { readWorkspaceLock } from "./workspace-lock";

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
      const files = readdirSync(s.dir, { recursive: true, encoding: "utf8" }).filter((f) =>
        f.endsWith(".js"),
      );
      for (const file of files.filter((f) => !f.startsWith("node_modules"))) {
        expect(readFileSync(path.join(s.dir, file), "utf8"), file).not.toContain(repoRoot);
      }
    }
  });

  test("pins every package the runtime installs to pnpm-lock.yaml's version and tarball hash", () => {
    const workspace = readWorkspaceLock(WORKSPACE_LOCK);
    for (const [key, s] of Object.entries(served)) {
      const manifest = JSON.parse(readFileSync(path.join(s.dir, "package.json"), "utf8"));
      const lock = JSON.parse(readFileSync(path.join(s.dir, "package-lock.json"), "utf8")) as NpmLockfile;
      expect(lock, key).toMatchObject({ name: manifest.name, lockfileVersion: 3 });
      expect(lock.packages[""]?.dependencies, key).toEqual(manifest.dependencies);
      const installed = Object.entries(lock.packages).filter(([location]) => location !== "");
      // Far more than the direct dependencies: express, google-gax, protobufjs... each pinned too.
      expect(installed.length, key).toBeGreaterThan(100);
      for (const [location, entry] of installed) {
        const name = location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);
        expect(
          workspace.packages[`${name}@${entry.version}`]?.resolution.integrity,
          `${key} ${location}`,
        ).toBe(entry.integrity);
        expect(entry.resolved, `${key} ${location}`).toMatch(/^https:\/\/registry\.npmjs\.org\/.+\.tgz$/);
      }
      expect(readFileSync(path.join(s.dir, ".npmrc"), "utf8"), key).toBe(BUNDLE_NPMRC);
    }
  });

  test("is what `npm ci`, as the runtime's buildpack runs it, installs without resolving any version", async () => {
    // Offline with an empty cache: npm ci accepts only a lock that is complete and agrees with package.json,
    // and any version it had to resolve would need the registry.
    const scratch = mkdtempSync(path.join(tmpdir(), "archiver-npm-ci-"));
    try {
      for (const [key, s] of Object.entries(served)) {
        const dir = path.join(scratch, key);
        cpFiles(s.dir, dir, ["package.json", "package-lock.json", ".npmrc"]);
        const args = [
          "ci",
          "--dry-run",
          "--offline",
          "--cache",
          path.join(scratch, "cache"),
          "--no-audit",
          "--no-fund",
        ];
        const { stdout } = await run("npm", args, { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
        const lock = JSON.parse(readFileSync(path.join(s.dir, "package-lock.json"), "utf8")) as NpmLockfile;
        expect(stdout, key).toContain(`added ${Object.keys(lock.packages).length - 1} packages`);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test("loads every chunk with only the packages of its lockfile installed, except those that need a native module production never uses", async () => {
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

function cpFiles(from: string, to: string, files: readonly string[]) {
  mkdirSync(to, { recursive: true });
  for (const file of files) copyFileSync(path.join(from, file), path.join(to, file));
}

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
