import type { LockedGraph, LockedPackage } from "./workspace-lock";

/**
 * A package-lock.json (lockfile v3) for a function bundle, written from the
 * workspace's pnpm lock (workspace-lock.ts). The Cloud Functions Node.js
 * buildpack installs a source that has one with `npm ci`, which installs
 * exactly the tree the lock describes, checks each tarball against its
 * integrity hash, and fails rather than resolve a range anew; without one it
 * resolves every transitive dependency from semver ranges on each deploy.
 *
 * npm's layout is a node_modules tree: a package is hoisted to the root
 * unless another version of it is already there, and then nested below the
 * package that needs it. Every package's every dependency must resolve, by
 * Node's lookup (own node_modules, then each ancestor's), to the exact
 * version pnpm resolved: `npmLockfile` checks that of the tree it lays out.
 */

export interface NpmLockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly license?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly bin?: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>>;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly libc?: readonly string[];
  readonly optional?: boolean;
  readonly hasInstallScript?: boolean;
}

export interface NpmLockfile {
  readonly name: string;
  readonly lockfileVersion: 3;
  readonly requires: true;
  /** "" is the bundle itself; every other key a node_modules path. */
  readonly packages: Readonly<Record<string, NpmLockEntry>>;
}

/** The default registry's tarball address, the one npm records (and rewrites to a configured registry). */
const REGISTRY = "https://registry.npmjs.org";

/**
 * The lock of a bundle named `name` whose package.json depends on exactly
 * `graph.roots`, and where each of its node_modules paths came from.
 */
export function npmLockfile(
  name: string,
  graph: LockedGraph,
): { lockfile: NpmLockfile; locations: ReadonlyMap<string, LockedPackage> } {
  const placed = layOut(graph);
  const packages: Record<string, NpmLockEntry> = {
    "": { name, dependencies: versions(graph.roots) },
  };
  for (const [location, key] of [...placed].sort(([a], [b]) => a.localeCompare(b))) {
    if (location === "") continue;
    packages[location] = entry(graph.packages.get(key) as LockedPackage, graph.optional.has(key));
  }
  const locations = new Map(
    [...placed].filter(([l]) => l !== "").map(([l, key]) => [l, graph.packages.get(key) as LockedPackage]),
  );
  return { lockfile: { name, lockfileVersion: 3, requires: true, packages }, locations };
}

/** Where Node looks for `name` from the package at `location`: the first existing candidate. */
export function resolveFrom(
  installed: { has(location: string): boolean },
  location: string,
  name: string,
): string | undefined {
  for (let at: string | undefined = location; at !== undefined; at = parentOf(at)) {
    const candidate = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (installed.has(candidate)) return candidate;
  }
  return undefined;
}

/** The package whose node_modules holds `location`; "" (the bundle) for a top-level one; none above "". */
function parentOf(location: string): string | undefined {
  if (location === "") return undefined;
  const at = location.lastIndexOf("/node_modules/");
  return at < 0 ? "" : location.slice(0, at);
}

const ROOT = "\0root";

/** node_modules path to snapshot key; "" is the bundle (ROOT). */
function layOut(graph: LockedGraph): Map<string, string> {
  const placed = new Map<string, string>([["", ROOT]]);
  const deps = (key: string) =>
    key === ROOT
      ? graph.roots
      : { ...graph.packages.get(key)?.dependencies, ...graph.packages.get(key)?.optionalDependencies };
  const done = new Set<string>();
  const queue = [""];
  for (let location = queue.shift(); location !== undefined; location = queue.shift()) {
    done.add(location);
    for (const [name, key] of Object.entries(deps(placed.get(location) as string))) {
      const at = placement(location, name, key);
      if (at === undefined) continue;
      placed.set(at, key);
      queue.push(at);
    }
  }
  // The tree is right only if every edge still resolves to what pnpm resolved.
  for (const [location, key] of placed) {
    for (const [name, want] of Object.entries(deps(key))) {
      const got = resolveFrom(placed, location, name);
      if (!got || placed.get(got) !== want)
        throw new Error(`lockfile layout: ${location || "the bundle"} would load ${got} for ${want}`);
    }
  }
  return placed;

  /**
   * Where to put `key` (named `name`) so that `location` finds it: undefined
   * when it already does; else the shallowest free spot on its lookup path
   * below any other version, which shadows no package whose dependencies
   * were already laid out.
   */
  function placement(location: string, name: string, key: string): string | undefined {
    const free: string[] = [];
    for (let at: string | undefined = location; at !== undefined; at = parentOf(at)) {
      const candidate = `${at ? `${at}/` : ""}node_modules/${name}`;
      const there = placed.get(candidate);
      if (there === key) return undefined;
      if (there !== undefined) break;
      free.unshift(candidate);
    }
    const spot = free.find((candidate) => !shadowsLaidOut(candidate, name, key));
    if (!spot) throw new Error(`lockfile layout: no place for ${key} below ${location || "the bundle"}`);
    return spot;
  }

  function shadowsLaidOut(candidate: string, name: string, key: string): boolean {
    const scope = parentOf(candidate) as string;
    return [...done].some(
      (location) =>
        (scope === "" || location === scope || location.startsWith(`${scope}/node_modules/`)) &&
        name in deps(placed.get(location) as string) &&
        deps(placed.get(location) as string)[name] !== key,
    );
  }
}

function versions(keys: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(keys).map(([name, key]) => [name, key.replace(/\(.*$/, "").slice(name.length + 1)]),
  );
}

function entry(pkg: LockedPackage, optional: boolean): NpmLockEntry {
  const unscoped = pkg.name.replace(/^@[^/]+\//, "");
  const optionalDependencies = versions(pkg.optionalDependencies);
  const dependencies = versions(pkg.dependencies);
  return {
    version: pkg.version,
    resolved: pkg.tarball ?? `${REGISTRY}/${pkg.name}/-/${unscoped}-${pkg.version}.tgz`,
    integrity: pkg.integrity,
    ...(pkg.license ? { license: pkg.license } : {}),
    ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}),
    ...(Object.keys(optionalDependencies).length > 0 ? { optionalDependencies } : {}),
    ...(pkg.bin ? { bin: pkg.bin } : {}),
    ...(pkg.engines ? { engines: pkg.engines } : {}),
    ...(pkg.os ? { os: pkg.os } : {}),
    ...(pkg.cpu ? { cpu: pkg.cpu } : {}),
    ...(pkg.libc ? { libc: pkg.libc } : {}),
    ...(optional ? { optional: true } : {}),
    ...(pkg.hasInstallScript ? { hasInstallScript: true } : {}),
  };
}
