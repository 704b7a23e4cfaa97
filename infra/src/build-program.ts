import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const infraDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Builds the Pulumi program (src/index.ts) into one ES module, dist/index.js,
 * the `main` of Pulumi.yaml. Pulumi's packages stay external: the language
 * host finds its plugins through them and they must be the instances the
 * engine talks to. Everything else (the archiver's config names, zod) is
 * inlined, so the program needs nothing but @pulumi/* at run time.
 */
export async function buildProgram(outfile = path.join(infraDir, "dist/index.js")): Promise<string> {
  await build({
    entryPoints: [path.join(infraDir, "src/index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    external: ["@pulumi/*"],
    legalComments: "none",
    logLevel: "error",
  });
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const outfile = await buildProgram();
    console.log(`${path.relative(process.cwd(), outfile)} built`);
  } catch {
    // esbuild has already printed each problem with its file and line.
    process.exitCode = 1;
  }
}
