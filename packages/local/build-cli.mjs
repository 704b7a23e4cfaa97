// Builds the archiver CLI (src/cli/main.ts) into dist/cli/: an ES module
// bundle Node runs without compiling TypeScript, so `pnpm archiver` starts in
// a fraction of the time tsx takes. Plain JavaScript: bin/archiver.mjs runs it
// to rebuild a stale bundle, and `pnpm install` (the root's prepare script)
// before anything else is built.
//
//   node packages/local/build-cli.mjs     (or pnpm build)
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESM_BUNDLE_OPTIONS, refuseDynamicCommonJs } from "../../scripts/esm-bundle.mjs";

const packageDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(packageDir, "../..");
export const outdir = path.join(packageDir, "dist/cli");
/** What bin/archiver.mjs reads to tell whether the bundle is older than its sources. */
export const buildInfoFile = path.join(outdir, "build-info.json");

/**
 * Left out of the bundle and imported from where the workspace installed
 * them: native modules (DuckDB; msgpackr-extract, an optional speed-up
 * BullMQ's msgpackr falls back from), the Cloud Tasks client, which reads
 * its protos from files beside its modules, and https-proxy-agent, a
 * CommonJS module gaxios loads with `import()` (see dynamicCommonJs in
 * scripts/esm-bundle.mjs). The
 * Functions Framework is not needed: the function packages register with it
 * only in their own `function.ts`, which the CLI never imports.
 */
const EXTERNAL = ["@duckdb/node-api", "msgpackr-extract", "@google-cloud/tasks", "https-proxy-agent"];

/** Chunks no build refers to any more are removed once this old (a running worker may still load them). */
const STALE_CHUNK_MS = 24 * 60 * 60 * 1000;

/**
 * The external packages are imported by absolute path, resolved from the
 * workspace package that depends on them: pnpm installs each package's
 * dependencies beside it, so packages/local could not find, say, the Cloud
 * Tasks client core depends on.
 */
const resolveExternals = {
  name: "resolve-externals",
  setup(build) {
    const filter = new RegExp(`^(${EXTERNAL.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})(/|$)`);
    build.onResolve({ filter }, async (args) => {
      if (args.pluginData?.resolving) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { resolving: true },
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: true };
    });
  },
};

/** Builds the bundle; returns its bytes and how long the build took. */
export async function buildCli() {
  const started = performance.now();
  // Sources changed while the build reads them count as newer than the bundle.
  const builtAt = Date.now();
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: packageDir,
    entryPoints: { archiver: "src/cli/main.ts" },
    outdir,
    ...ESM_BUNDLE_OPTIONS,
    plugins: [resolveExternals],
    metafile: true,
    write: false,
    logLevel: "error",
  });

  refuseDynamicCommonJs(
    result.metafile,
    packageDir,
    repoRoot,
    "import it statically in a module of ours that is imported dynamically, or add it to EXTERNAL",
  );

  // Each file is written beside its place and renamed into it, chunks before
  // the entry point: a CLI starting meanwhile loads the old bundle or the new
  // one, never half a file.
  mkdirSync(path.join(outdir, "chunks"), { recursive: true });
  const files = [...result.outputFiles].sort(
    (a, b) => Number(a.path.endsWith("archiver.js")) - Number(b.path.endsWith("archiver.js")),
  );
  for (const file of files) writeAtomically(file.path, file.contents);
  pruneChunks(new Set(files.map((file) => file.path)));

  const inputs = Object.keys(result.metafile.inputs)
    .map((input) => path.relative(repoRoot, path.resolve(packageDir, input)))
    .filter((input) => !input.split(path.sep).includes("node_modules"))
    .sort();
  writeAtomically(buildInfoFile, `${JSON.stringify({ root: repoRoot, builtAt, inputs }, null, 2)}\n`);
  const bytes = files.reduce((sum, file) => sum + file.contents.byteLength, 0);
  return { bytes, ms: Math.round(performance.now() - started) };
}

/**
 * Why the bundle must be built again before it runs, or undefined when it is
 * current: missing, built in another checkout, or older than one of the
 * workspace's source files it was built from.
 */
export function staleReason(info) {
  if (!info || !existsSync(path.join(outdir, "archiver.js"))) return "not built yet";
  if (info.root !== repoRoot) return "built in another checkout";
  for (const input of info.inputs) {
    let modified;
    try {
      modified = statSync(path.join(repoRoot, input)).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (modified > info.builtAt) return `${input} changed`;
  }
  return undefined;
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

function pruneChunks(current) {
  const dir = path.join(outdir, "chunks");
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (current.has(file)) continue;
    try {
      if (now - statSync(file).mtimeMs > STALE_CHUNK_MS) rmSync(file, { force: true });
    } catch {
      // Another build removed it first.
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { bytes, ms } = await buildCli();
    console.log(
      `archiver CLI: ${path.relative(process.cwd(), outdir) || "."} (${Math.round(bytes / 1024)} KiB) in ${ms} ms`,
    );
  } catch (error) {
    // esbuild has already printed each problem with its file and line.
    console.error(`build-cli: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
    process.exitCode = 1;
  }
}
