import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { ESM_BUNDLE_OPTIONS, refuseDynamicCommonJs } from "./esm-bundle.mjs";
import { type NpmLockfile, npmLockfile } from "./npm-lockfile";
import { lockedClosure, readWorkspaceLock } from "./workspace-lock";

/** The workspace's lock, the one every bundle's package-lock.json is derived from. */
export const WORKSPACE_LOCK = fileURLToPath(new URL("../pnpm-lock.yaml", import.meta.url));

/**
 * Written beside package.json: npm reads a project's .npmrc, so the runtime's
 * `npm ci` runs no package's install scripts (protobufjs has a postinstall),
 * as the builder account would otherwise. The workspace builds none of them
 * either (pnpm-workspace.yaml), and the bundles are tested without them.
 */
export const BUNDLE_NPMRC = "ignore-scripts=true\n";

/**
 * Packages the Cloud Functions runtime installs from dist/package.json instead
 * of the bundle carrying them: the Functions Framework, which is the
 * runtime's entry point, and the Cloud Tasks client, which (through
 * google-gax) reads its client config and protos from files beside its own
 * modules at run time, something no bundle can preserve; and https-proxy-agent,
 * a CommonJS module gaxios loads with `import()` when HTTPS_PROXY is set,
 * which a bundle would reduce to its default export (refuseDynamicCommonJs).
 * Versions are the ones the workspace installed and tested.
 */
export const RUNTIME_DEPENDENCIES = [
  "@google-cloud/functions-framework",
  "@google-cloud/tasks",
  "https-proxy-agent",
] as const;

/**
 * Native modules only reached on paths production never takes: DuckDB is the
 * local warehouse, msgpackr-extract an optional speed-up BullMQ's msgpackr
 * falls back from. Neither bundled nor installed; dynamic imports keep them in
 * chunks that production never loads.
 */
export const NEVER_BUNDLED = ["@duckdb/node-api", "msgpackr-extract"] as const;

export interface BuiltFunction {
  readonly name: string;
  /** The directory Cloud Functions receives: index.js, chunks/, package.json, package-lock.json, .npmrc. */
  readonly outdir: string;
  /** What the runtime installs (name to exact version), only the runtime dependencies the code imports. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** What dist/package-lock.json holds: every package `npm ci` installs, as pnpm-lock.yaml pins it. */
  readonly lockfile: NpmLockfile;
  /** Each node_modules path of the lockfile, and where the workspace installed that package (none: another platform's optional one). */
  readonly installedAt: Readonly<Record<string, string | undefined>>;
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
 * Functions Node.js 22 runtime installs, with a package-lock.json pinning
 * every package below them to pnpm-lock.yaml's version and integrity, so the
 * deploy resolves nothing anew (npm-lockfile.ts). Dynamic imports become separate
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
  refuseDynamicCommonJs(
    result.metafile,
    root,
    root,
    "add the package to RUNTIME_DEPENDENCIES, so that Node imports it from node_modules",
  );

  const installed = runtimeDependencies(result.metafile, root);
  const dependencies = Object.fromEntries(installed.map((d) => [d.name, d.version]));
  const bundleName = `${manifest.name.replace(/^@/, "").replace("/", "-")}-bundle`;
  const { lockfile, locations } = npmLockfile(
    bundleName,
    lockedClosure(readWorkspaceLock(WORKSPACE_LOCK), installed),
  );
  const writeJson = (file: string, value: unknown) =>
    writeFileSync(path.join(outdir, file), `${JSON.stringify(value, null, 2)}\n`);
  writeJson("package.json", {
    name: bundleName,
    private: true,
    type: "module",
    main: "index.js",
    engines: { node: "22" },
    dependencies,
  });
  writeJson("package-lock.json", lockfile);
  writeFileSync(path.join(outdir, ".npmrc"), BUNDLE_NPMRC);
  return {
    name: manifest.name,
    outdir,
    dependencies,
    lockfile,
    installedAt: Object.fromEntries([...locations].map(([location, pkg]) => [location, pkg.dir])),
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
    const locked = Object.keys(built.lockfile.packages).length - 1;
    console.log(
      `${built.name}: ${(built.bytes / 1024).toFixed(0)} KiB, installs ${runtime.join(", ")} (${locked} packages locked)`,
    );
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
