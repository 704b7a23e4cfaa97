import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { InfraConfigError } from "../config/infra-config-error";

export interface FunctionBundleArgs {
  /** The bucket that holds function sources. */
  readonly bucket: pulumi.Input<string>;
  /** Directory of a built bundle (`dist/` with index.js and package.json), from `pnpm build`. */
  readonly directory: string;
}

/**
 * A built function bundle uploaded as `<name>-<sha256 of its files>.zip`. The
 * object name changes exactly when the code does, and Cloud Functions only
 * rebuilds when the source object changes, so a code change redeploys and an
 * unchanged bundle does not.
 */
export class FunctionBundle extends pulumi.ComponentResource {
  readonly object: gcp.storage.BucketObject;
  /** Hex SHA-256 over the bundle's file names and contents. */
  readonly contentHash: string;

  constructor(name: string, args: FunctionBundleArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:FunctionBundle", name, {}, opts);
    const directory = requireBuiltBundle(args.directory);

    this.contentHash = hashDirectory(directory);
    this.object = new gcp.storage.BucketObject(
      `${name}-source`,
      {
        bucket: args.bucket,
        name: `${name}-${this.contentHash.slice(0, 20)}.zip`,
        source: new pulumi.asset.FileArchive(directory),
      },
      { parent: this },
    );
    this.registerOutputs({ object: this.object.name });
  }
}

function requireBuiltBundle(directory: string): string {
  const absolute = path.resolve(directory);
  for (const file of ["index.js", "package.json"]) {
    if (!existsSync(path.join(absolute, file))) {
      throw new InfraConfigError(`${path.join(absolute, file)} is missing: run \`pnpm build\` before pulumi`);
    }
  }
  return absolute;
}

/** Files are hashed in sorted order with their relative paths, so a rename also changes the hash. */
function hashDirectory(directory: string): string {
  const hash = createHash("sha256");
  for (const file of listFiles(directory)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(directory, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

function listFiles(directory: string, prefix = ""): string[] {
  const entries = readdirSync(path.join(directory, prefix), { withFileTypes: true });
  const files = entries.flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(directory, relative) : [relative];
  });
  return files.sort();
}
