import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

/**
 * Package boundaries: code reaches another workspace package only through
 * that package's name and the entry points its package.json `exports` lists
 * (`@table-archiver/core`, `@table-archiver/core/config`, ...), never through
 * a relative path into its directory (`../../packages/core/src/...`) or a
 * subpath it does not export (`@table-archiver/redis-reader/src/set-reader`).
 * The function packages (entry, task-handler, redis-reader) export only their
 * root and `./function` (the file that registers the Cloud Function), so
 * nothing can lean on their internals.
 *
 * Layers: inside packages/core/src a file may not import (by relative path) a
 * folder of a higher layer than its own; see CORE_LAYERS. A `testing` folder
 * nested in a layer (adapters/duckdb/testing/) belongs to that layer, so it
 * may not import core's top-level testing/. Test files (`*.test.ts`) are exempt.
 */

/** A workspace package as the boundary check sees it. */
export interface WorkspacePackage {
  readonly name: string;
  /** Repository-relative directory with forward slashes; "" for the repository root. */
  readonly dir: string;
  /** The subpaths its `exports` allows: ".", "./ports", ... */
  readonly exports: readonly string[];
  /** Every package it names in dependencies or devDependencies. */
  readonly dependsOn: readonly string[];
}

export interface SourceFile {
  /** Repository-relative path with forward slashes. */
  readonly path: string;
  readonly text: string;
}

export interface BoundaryViolation {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly reason: string;
}

const SOURCE_EXTENSIONS = /\.(ts|mts|cts|mjs|cjs|js)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);

// Static imports and re-exports (their clause may span lines), side-effect imports, dynamic imports.
const STATIC =
  /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,?\s*)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})?\s*from\s*(["'])([^"'\n]+)\1/gm;
const SIDE_EFFECT = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
const DYNAMIC = /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g;

/** Every module specifier a file names, with the line it is on. */
export function importsOf(text: string): { specifier: string; line: number }[] {
  const found = new Map<number, string>();
  for (const pattern of [STATIC, SIDE_EFFECT, DYNAMIC]) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[2] as string;
      found.set((match.index ?? 0) + match[0].lastIndexOf(specifier), specifier);
    }
  }
  return [...found]
    .sort(([a], [b]) => a - b)
    .map(([offset, specifier]) => ({ specifier, line: lineAt(text, offset) }));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The package a repository-relative path belongs to: the deepest package directory holding it. */
function ownerOf(file: string, packages: readonly WorkspacePackage[]): WorkspacePackage | undefined {
  let owner: WorkspacePackage | undefined;
  for (const pkg of packages) {
    const inside = pkg.dir === "" || file === pkg.dir || file.startsWith(`${pkg.dir}/`);
    if (inside && (!owner || pkg.dir.length > owner.dir.length)) owner = pkg;
  }
  return owner;
}

function entryPoints(pkg: WorkspacePackage): string {
  return pkg.exports
    .map((subpath) => (subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`))
    .join(", ");
}

const CORE_SRC = "packages/core/src/";

/** The top-level folders of packages/core/src, lowest layer first; a layer is named by its first folder. */
const CORE_LAYERS: readonly (readonly string[])[] = [
  ["errors"],
  ["model"],
  ["ports"],
  ["domain"],
  ["config"],
  ["adapters", "http"],
  ["runtime", "entry-points"], // and the package root's own files (index.ts)
  ["testing"],
];
const LAYER_ORDER = CORE_LAYERS.map(([name]) => name).join(" < ");
const TEST_FILE = /\.test\.ts$/;

/** The layer of a repository-relative path inside packages/core/src: its rank and how to name it. */
function layerOf(file: string): { rank: number; name: string } | undefined {
  if (!file.startsWith(CORE_SRC)) return undefined;
  const [top = "", ...rest] = file.slice(CORE_SRC.length).split("/");
  const rank = CORE_LAYERS.findIndex((layer) => layer.includes(top));
  if (rank !== -1) return { rank, name: `${top}/` };
  return rest.length === 0 ? { rank: CORE_LAYERS.length - 2, name: top } : undefined;
}

function layerReason(file: string, target: string): string | undefined {
  const from = TEST_FILE.test(file) ? undefined : layerOf(file);
  const to = layerOf(target);
  if (!from || !to || to.rank <= from.rank) return undefined;
  return `${from.name} imports ${to.name} (a lower layer may not import a higher one: ${LAYER_ORDER})`;
}

/** What each import in `files` does wrong, in file and line order. */
export function findBoundaryViolations(
  files: readonly SourceFile[],
  packages: readonly WorkspacePackage[],
): BoundaryViolation[] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const violations: BoundaryViolation[] = [];
  for (const file of files) {
    const importer = ownerOf(file.path, packages);
    for (const { specifier, line } of importsOf(file.text)) {
      const reason = specifier.startsWith(".")
        ? relativeReason(file.path, specifier, importer, packages)
        : packageReason(specifier, importer, byName);
      if (reason) violations.push({ file: file.path, line, specifier, reason });
    }
  }
  return violations;
}

function relativeReason(
  file: string,
  specifier: string,
  importer: WorkspacePackage | undefined,
  packages: readonly WorkspacePackage[],
): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const owner = ownerOf(target, packages);
  // The repository root's own files (scripts/) are shared build tooling, not a package's internals.
  if (owner && owner !== importer && owner.dir !== "") {
    return `reaches into ${owner.dir}/ by path; import ${entryPoints(owner)} instead`;
  }
  return layerReason(file, target);
}

function packageReason(
  specifier: string,
  importer: WorkspacePackage | undefined,
  byName: ReadonlyMap<string, WorkspacePackage>,
): string | undefined {
  const [scope, name, ...rest] = specifier.split("/");
  const target = byName.get(scope?.startsWith("@") ? `${scope}/${name}` : (scope as string));
  if (!target || target === importer) return undefined;
  const subpath = rest.length > 0 ? `./${rest.join("/")}` : ".";
  if (!target.exports.includes(subpath)) {
    return `${target.name} does not export ${subpath} (its package.json exports ${entryPoints(target)})`;
  }
  if (importer && !importer.dependsOn.includes(target.name)) {
    return `${importer.dir || "the root package"} does not list ${target.name} in its package.json`;
  }
  return undefined;
}

/** The repository root's package and those pnpm-workspace.yaml names, read from their package.json. */
export function readWorkspace(root: string): WorkspacePackage[] {
  const { packages: globs = [] } = parse(readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8")) as {
    packages?: string[];
  };
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
  return ["", ...dirs]
    .filter((dir) => existsSync(path.join(root, dir, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8")) as {
        name: string;
        exports?: string | Record<string, unknown>;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const exports =
        manifest.exports === undefined || typeof manifest.exports === "string"
          ? ["."]
          : Object.keys(manifest.exports);
      const dependsOn = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
      return { name: manifest.name, dir, exports, dependsOn };
    });
}

/** Every source file under root, skipping dependencies, build output and dot-directories. */
export function readSources(root: string, dir = ""): SourceFile[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      return entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name) ? [] : readSources(root, relative);
    }
    return entry.isFile() && SOURCE_EXTENSIONS.test(entry.name)
      ? [{ path: relative, text: readFileSync(path.join(root, relative), "utf8") }]
      : [];
  });
}

export function formatViolation(violation: BoundaryViolation): string {
  return `${violation.file}:${violation.line}: "${violation.specifier}" ${violation.reason}`;
}
