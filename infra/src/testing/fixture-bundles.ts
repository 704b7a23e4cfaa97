import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BundleDirectories } from "../components/archiver-functions";

/** Stand-in bundle directories (index.js + package.json), laid out like `packages/<name>/dist`. */
export interface FixtureBundles {
  readonly root: string;
  readonly directories: BundleDirectories;
  /** Rewrites one bundle's index.js, as a code change would. */
  change(key: keyof BundleDirectories, code: string): void;
  remove(): void;
}

export function createFixtureBundles(): FixtureBundles {
  const root = mkdtempSync(path.join(tmpdir(), "archiver-bundles-"));
  const directories: BundleDirectories = {
    entry: path.join(root, "packages/entry/dist"),
    taskHandler: path.join(root, "packages/task-handler/dist"),
    reader: path.join(root, "packages/redis-reader/dist"),
  };
  const write = (key: keyof BundleDirectories, code: string) => {
    mkdirSync(directories[key], { recursive: true });
    writeFileSync(path.join(directories[key], "index.js"), code);
    writeFileSync(
      path.join(directories[key], "package.json"),
      JSON.stringify({ name: key, main: "index.js" }),
    );
  };
  for (const key of Object.keys(directories) as (keyof BundleDirectories)[]) write(key, `// ${key} v1\n`);
  return {
    root,
    directories,
    change: write,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
