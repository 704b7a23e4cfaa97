import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { ESM_BUNDLE_OPTIONS } from "./esm-bundle.mjs";

/**
 * Packages the Cloud Functions runtime installs from dist/package.json instead
 * of the bundle carrying them: the Functions Framework, which is the
 * runtime's entry point, and the Cloud Tasks client, which (through
 * google-gax) reads its client config and protos from files beside its own
 * modules at run time, something no bundle can preserve. Versions are the ones
 * the workspace installed and tested.
 */
export const RUNTIME_DEPENDENCIES = ["@google-cloud/functions-framework", "@google-cloud/tasks"] as const;

/**
 * Native modules only reached on paths production never takes: DuckDB is the
 * local warehouse, msgpackr-extract an optional speed-up BullMQ's msgpackr
 * falls back from. Neither bundled nor installed; dynamic imports keep them in
 * chunks that production never loads.
 */
export const NEVER_BUNDLED = ["@duckdb/node-api", "msgpackr-extract"] as const;

export interface BuiltFunction {
  readonly name: string;
  /** The directory Cloud Functions receives: index.js, chunks/, package.json. */
  readonly outdir: string;
  /** What the runtime installs (name to exact version), only the runtime dependencies the code imports. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Where the workspace installed each of them. */
  readonly installedAt: Readonly<Record<string, string>>;
  /** Bytes of JavaScript written. */
  readonly bytes: number;
}

/**
 * Builds a function package (`packages/<name>`) into `<package>/dist`: an
 * ES module bundle, index.js, of the file its package.json exports as
 * `./function` (src/function.ts, which registers the Cloud Function with the
 * Functions Framework on import; the package's root, src/index.ts, registers
 * nothing), with the workspace packages and libraries inlined (all but
 * RUNTIME_DEPENDENCIES and NEVER_BUNDLED), plus the package.json the Cloud
 * Functions Node.js 22 runtime installs. Dynamic imports become separate
 * chunks, so code that loads a driver on demand (DuckDB, BigQuery, Cloud
 * Tasks) costs nothing until used.
 */
export async function buildFunction(packageDir: string): Promise<BuiltFunction> {
  const root = path.resolve(packageDir);
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    name: string;
    exports?: Record<string, string>;
  };
  const entry = manifest.exports?.["./function"];
  if (!entry)
    throw new Error(`${manifest.name} exports no "./function", the file that registers its function`);
  const outdir = path.join(root, "dist");
  rmSync(outdir, { recursive: true, force: true });

  const result = await build({
    absWorkingDir: root,
    entryPoints: { index: path.join(root, entry) },
    outdir,
    ...ESM_BUNDLE_OPTIONS,
    external: [...RUNTIME_DEPENDENCIES, ...NEVER_BUNDLED],
    metafile: true,
    logLevel: "error",
  });

  const installed = runtimeDependencies(result.metafile, root);
  const dependencies = Object.fromEntries(installed.map((d) => [d.name, d.version]));
  writeFileSync(
    path.join(outdir, "package.json"),
    `${JSON.stringify(
      {
        name: `${manifest.name.replace(/^@/, "").replace("/", "-")}-bundle`,
        private: true,
        type: "module",
        main: "index.js",
        engines: { node: "22" },
        dependencies,
      },
      null,
      2,
    )}\n`,
  );
  return {
    name: manifest.name,
    outdir,
    dependencies,
    installedAt: Object.fromEntries(installed.map((d) => [d.name, d.dir])),
    bytes: outputBytes(result.metafile),
  };
}

interface InstalledDependency {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
}

/** The runtime dependencies the bundle imports, each resolved from a file that imports it. */
function runtimeDependencies(metafile: Metafile, root: string): InstalledDependency[] {
  const importers = new Map<string, string>();
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    for (const imported of imports) {
      if (imported.external && !importers.has(imported.path))
        importers.set(imported.path, path.resolve(root, input));
    }
  }
  return RUNTIME_DEPENDENCIES.flatMap((name) => {
    const importer = importers.get(name);
    return importer ? [installedPackage(importer, name)] : [];
  });
}

/** Where `importer` finds `dependency`, and its exact version. */
function installedPackage(importer: string, dependency: string): InstalledDependency {
  // Not every package exports its package.json: walk up from the entry point to the manifest that names it.
  let dir = path.dirname(createRequire(importer).resolve(dependency));
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        version: string;
      };
      if (name === dependency) return { name, version, dir };
    }
    dir = path.dirname(dir);
  }
  throw new Error(`no package.json for ${dependency} above ${importer}`);
}

function outputBytes(metafile: Metafile): number {
  return Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}

async function main(argv: readonly string[]): Promise<void> {
  const packageDir = argv[0];
  if (!packageDir) {
    console.error("usage: build-function <package-dir>");
    process.exitCode = 2;
    return;
  }
  try {
    const built = await buildFunction(packageDir);
    const runtime = Object.entries(built.dependencies).map(([name, version]) => `${name}@${version}`);
    console.log(`${built.name}: ${(built.bytes / 1024).toFixed(0)} KiB, installs ${runtime.join(", ")}`);
  } catch (error) {
    // esbuild has already printed each problem with its file and line.
    console.error(
      `build-function: ${packageDir} failed: ${error instanceof Error ? error.message.split("\n")[0] : error}`,
    );
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
