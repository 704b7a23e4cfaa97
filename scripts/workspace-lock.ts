import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

/**
 * The workspace's pnpm-lock.yaml (lockfile v9) as the function bundles need
 * it: the exact package graph below the packages a bundle leaves to the
 * Cloud Functions runtime to install, so that the bundle's own lockfile
 * (npm-lockfile.ts) pins every transitive package to the version, and the
 * tarball hash, the workspace installed and tested.
 */

interface PnpmPackage {
  resolution: { integrity?: string; tarball?: string };
  engines?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  hasBin?: boolean;
}
interface PnpmSnapshot {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
export interface WorkspaceLock {
  readonly packages: Readonly<Record<string, PnpmPackage>>;
  readonly snapshots: Readonly<Record<string, PnpmSnapshot>>;
}

/** One package of the graph; `key` is its pnpm snapshot key, `name@version` plus any resolved peers. */
export interface LockedPackage {
  readonly key: string;
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly tarball?: string;
  /** Dependency name to the snapshot key it resolves to. */
  readonly dependencies: Readonly<Record<string, string>>;
  readonly optionalDependencies: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>>;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly libc?: readonly string[];
  /** Where the workspace installed it; none for an optional package of another platform. */
  readonly dir?: string;
  /** From its installed package.json: what the lock must say for npm to link bins and run scripts. */
  readonly bin?: Readonly<Record<string, string>>;
  readonly license?: string;
  readonly hasInstallScript?: boolean;
}

export function readWorkspaceLock(file: string): WorkspaceLock {
  const lock = parse(readFileSync(file, "utf8")) as Partial<WorkspaceLock> & { lockfileVersion?: string };
  if (lock.lockfileVersion !== "9.0" || !lock.packages || !lock.snapshots)
    throw new Error(`${file}: expected a pnpm lockfile v9.0, found ${lock.lockfileVersion}`);
  return { packages: lock.packages, snapshots: lock.snapshots };
}

/** `name@version` of a snapshot key, without its peers' suffix `(peer@1.0.0)...`. */
export function packageId(key: string): { name: string; version: string } {
  const bare = key.replace(/\(.*$/, "");
  const at = bare.lastIndexOf("@");
  if (at <= 0) throw new Error(`not a package key: ${key}`);
  return { name: bare.slice(0, at), version: bare.slice(at + 1) };
}

/** The graph below a bundle's runtime dependencies. */
export interface LockedGraph {
  /** Each runtime dependency's name to its snapshot key. */
  readonly roots: Readonly<Record<string, string>>;
  readonly packages: ReadonlyMap<string, LockedPackage>;
  /** Keys reached only through optional dependencies: npm may skip them (another platform's binaries). */
  readonly optional: ReadonlySet<string>;
}

/**
 * Every package reachable from `roots` (each a package the workspace
 * installed at `dir`), keyed by snapshot key. Fails when the lock lacks a
 * package or the installed copy differs from it: the lock would then not be
 * what the tests ran against.
 */
export function lockedClosure(
  lock: WorkspaceLock,
  roots: readonly { name: string; version: string; dir: string }[],
): LockedGraph {
  const rootKeys = Object.fromEntries(roots.map((r) => [r.name, rootKey(lock, r.name, r.version)]));
  const packages = new Map<string, LockedPackage>();
  const queue: { key: string; dir: string | undefined }[] = roots.map((r) => ({
    key: rootKeys[r.name] as string,
    dir: r.dir,
  }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { key, dir } = next;
    if (packages.has(key)) continue;
    const pkg = lockedPackage(lock, key, dir);
    packages.set(key, pkg);
    for (const [name, child] of Object.entries({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      // pnpm links a package's dependencies beside it: <store>/node_modules/{<name>,<dependency>}.
      const beside = dir && path.join(dir, ...pkg.name.split("/").map(() => ".."), name);
      queue.push({ key: child, dir: beside && existsSync(beside) ? realpathSync(beside) : undefined });
    }
  }
  const required = reachable(packages, Object.values(rootKeys), (pkg) => Object.values(pkg.dependencies));
  const optional = new Set([...packages.keys()].filter((key) => !required.has(key)));
  for (const pkg of packages.values()) {
    if (!pkg.dir && !optional.has(pkg.key))
      throw new Error(`${pkg.key} is in pnpm-lock.yaml but not installed: run pnpm install`);
  }
  return { roots: rootKeys, packages, optional };
}

function reachable(
  packages: ReadonlyMap<string, LockedPackage>,
  from: readonly string[],
  edges: (pkg: LockedPackage) => string[],
): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  for (let key = queue.shift(); key; key = queue.shift()) {
    const pkg = packages.get(key);
    if (seen.has(key) || !pkg) continue;
    seen.add(key);
    queue.push(...edges(pkg));
  }
  return seen;
}

function rootKey(lock: WorkspaceLock, name: string, version: string): string {
  const id = `${name}@${version}`;
  const keys = Object.keys(lock.snapshots).filter((k) => k === id || k.startsWith(`${id}(`));
  if (keys.length !== 1)
    throw new Error(`pnpm-lock.yaml has ${keys.length} entries for ${id}, not one: run pnpm install`);
  return keys[0] as string;
}

function lockedPackage(lock: WorkspaceLock, key: string, dir: string | undefined): LockedPackage {
  const { name, version } = packageId(key);
  const meta = lock.packages[`${name}@${version}`];
  const snapshot = lock.snapshots[key];
  if (!meta || !snapshot) throw new Error(`pnpm-lock.yaml has no entry for ${key}`);
  const integrity = meta.resolution.integrity;
  if (!integrity) throw new Error(`pnpm-lock.yaml records no integrity for ${key}`);
  const manifest = dir ? installedManifest(dir, name, version) : undefined;
  return {
    key,
    name,
    version,
    integrity,
    tarball: meta.resolution.tarball,
    dependencies: childKeys(key, snapshot.dependencies),
    optionalDependencies: childKeys(key, snapshot.optionalDependencies),
    engines: meta.engines,
    os: meta.os,
    cpu: meta.cpu,
    libc: meta.libc,
    dir,
    ...manifest,
  };
}

/** Snapshot dependencies are `name: version(peers)`; an alias (`name: other@version`) is refused. */
function childKeys(key: string, deps: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(deps ?? {}).map(([name, ref]) => {
      if (!/^\d/.test(ref)) throw new Error(`${key}: dependency ${name}: ${ref} is not a registry version`);
      return [name, `${name}@${ref}`];
    }),
  );
}

function installedManifest(dir: string, name: string, version: string) {
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
    license?: string;
    bin?: string | Record<string, string>;
    scripts?: Record<string, string>;
  };
  if (manifest.name !== name || manifest.version !== version)
    throw new Error(
      `${dir} holds ${manifest.name}@${manifest.version}, pnpm-lock.yaml says ${name}@${version}`,
    );
  const scripts = manifest.scripts ?? {};
  return {
    // npm's lock spells a single bin as a map from the unscoped name.
    bin: typeof manifest.bin === "string" ? { [name.replace(/^@[^/]+\//, "")]: manifest.bin } : manifest.bin,
    license: manifest.license,
    hasInstallScript:
      Boolean(scripts.preinstall || scripts.install || scripts.postinstall) ||
      existsSync(path.join(dir, "binding.gyp")) ||
      undefined,
  };
}
