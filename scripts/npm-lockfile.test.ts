import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { WORKSPACE_LOCK } from "./build-function";
import { type NpmLockfile, npmLockfile, resolveFrom } from "./npm-lockfile";
import { type LockedGraph, type LockedPackage, lockedClosure, readWorkspaceLock } from "./workspace-lock";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A graph from `name@version: [dependency keys]`; every package installed nowhere, none optional. */
function graph(roots: string[], edges: Record<string, string[]>): LockedGraph {
  const name = (key: string) => key.slice(0, key.lastIndexOf("@"));
  const packages = new Map<string, LockedPackage>(
    Object.entries(edges).map(([key, deps]) => [
      key,
      {
        key,
        name: name(key),
        version: key.slice(key.lastIndexOf("@") + 1),
        integrity: `sha512-${key}`,
        dependencies: Object.fromEntries(deps.map((d) => [name(d), d])),
        optionalDependencies: {},
      },
    ]),
  );
  return { roots: Object.fromEntries(roots.map((r) => [name(r), r])), packages, optional: new Set() };
}

/** Each node_modules path of the lock as `name@version`, and a check that every dependency resolves to its version. */
function tree(lock: NpmLockfile): Record<string, string> {
  const entries = Object.entries(lock.packages);
  const installed = new Set(entries.map(([location]) => location));
  for (const [location, entry] of entries) {
    for (const [name, version] of Object.entries(entry.dependencies ?? {})) {
      const found = resolveFrom(installed, location, name);
      expect(found && lock.packages[found]?.version, `${location || "root"} -> ${name}`).toBe(version);
    }
  }
  return Object.fromEntries(
    entries
      .filter(([location]) => location !== "")
      .map(([location, entry]) => [location, `${location.split("node_modules/").pop()}@${entry.version}`]),
  );
}

describe("npmLockfile", () => {
  test("hoists every package to the top when no two versions of a name meet", () => {
    const { lockfile } = npmLockfile("b", graph(["a@1.0.0"], { "a@1.0.0": ["b@2.0.0"], "b@2.0.0": [] }));
    expect(lockfile.packages[""]).toEqual({ name: "b", dependencies: { a: "1.0.0" } });
    expect(tree(lockfile)).toEqual({ "node_modules/a": "a@1.0.0", "node_modules/b": "b@2.0.0" });
  });

  test("nests a second version below the package that needs it; the bundle's own dependency keeps the top", () => {
    const { lockfile } = npmLockfile(
      "b",
      graph(["a@1.0.0", "c@2.0.0"], { "a@1.0.0": ["c@1.0.0"], "c@1.0.0": [], "c@2.0.0": [] }),
    );
    expect(tree(lockfile)).toEqual({
      "node_modules/a": "a@1.0.0",
      "node_modules/a/node_modules/c": "c@1.0.0",
      "node_modules/c": "c@2.0.0",
    });
  });

  test("never shadows the version a package higher up already relies on", () => {
    // a needs g@2 (the top one); a's own f@1 needs g@1: under a it would hide g@2 from a, so it goes under f.
    const { lockfile } = npmLockfile(
      "b",
      graph(["g@2.0.0", "a@1.0.0", "f@2.0.0"], {
        "a@1.0.0": ["f@1.0.0", "g@2.0.0"],
        "f@1.0.0": ["g@1.0.0"],
        "f@2.0.0": [],
        "g@1.0.0": [],
        "g@2.0.0": [],
      }),
    );
    expect(tree(lockfile)).toMatchObject({
      "node_modules/a/node_modules/f": "f@1.0.0",
      "node_modules/a/node_modules/f/node_modules/g": "g@1.0.0",
      "node_modules/g": "g@2.0.0",
    });
    expect(lockfile.packages).not.toHaveProperty("node_modules/a/node_modules/g");
  });

  test("survives dependency cycles, and records scoped tarballs as the registry names them", () => {
    const { lockfile } = npmLockfile(
      "b",
      graph(["@s/a@1.0.0"], { "@s/a@1.0.0": ["b@1.0.0"], "b@1.0.0": ["@s/a@1.0.0"] }),
    );
    expect(tree(lockfile)).toEqual({ "node_modules/@s/a": "@s/a@1.0.0", "node_modules/b": "b@1.0.0" });
    expect(lockfile.packages["node_modules/@s/a"]).toMatchObject({
      resolved: "https://registry.npmjs.org/@s/a/-/a-1.0.0.tgz",
      integrity: "sha512-@s/a@1.0.0",
      dependencies: { b: "1.0.0" },
    });
  });
});

describe("lockedClosure", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("pins the Functions Framework and the Cloud Tasks client, and all below them, to pnpm-lock.yaml", () => {
    const lock = readWorkspaceLock(WORKSPACE_LOCK);
    const installed = (from: string, name: string) => {
      const at = realpathSync(path.join(repoRoot, from, "node_modules", name));
      return { name, version: versionIn(at), dir: at };
    };
    const closure = lockedClosure(lock, [
      installed("packages/entry", "@google-cloud/functions-framework"),
      installed("packages/core", "@google-cloud/tasks"),
    ]);
    const { lockfile, locations } = npmLockfile("bundle", closure);
    const entries = Object.entries(tree(lockfile));
    for (const name of ["express", "google-gax", "protobufjs", "@grpc/grpc-js"])
      expect(
        entries.some(([location]) => location === `node_modules/${name}`),
        name,
      ).toBe(true);
    for (const [location, id] of entries) {
      expect(lock.packages[id]?.resolution.integrity, location).toBe(lockfile.packages[location]?.integrity);
      expect(versionIn(locations.get(location)?.dir as string), location).toBe(
        id.slice(id.lastIndexOf("@") + 1),
      );
    }
    // What npm needs to link the runtime's entry point and to know a package has install scripts.
    expect(lockfile.packages["node_modules/@google-cloud/functions-framework"]?.bin).toHaveProperty(
      "functions-framework",
    );
    expect(lockfile.packages["node_modules/protobufjs"]?.hasInstallScript).toBe(true);
  });

  test("refuses an installed package that is not the version pnpm-lock.yaml names", () => {
    dir = mkdtempSync(path.join(tmpdir(), "archiver-lock-"));
    const at = path.join(dir, "a@1.0.0/node_modules/a");
    mkdirSync(at, { recursive: true });
    writeFileSync(path.join(at, "package.json"), JSON.stringify({ name: "a", version: "1.0.1" }));
    const lock = {
      packages: { "a@1.0.0": { resolution: { integrity: "sha512-x" } } },
      snapshots: { "a@1.0.0": {} },
    };
    expect(() => lockedClosure(lock, [{ name: "a", version: "1.0.0", dir: at }])).toThrow(
      /holds a@1\.0\.1, pnpm-lock\.yaml says a@1\.0\.0/,
    );
    expect(() => lockedClosure(lock, [{ name: "a", version: "2.0.0", dir: at }])).toThrow(
      /0 entries for a@2\.0\.0/,
    );
  });
});

function versionIn(dir: string): string {
  return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version;
}
