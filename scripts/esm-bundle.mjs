// The esbuild options every ES module bundle of this repository shares, the
// archiver CLI's and each Cloud Function's: one Node 22 ES module whose
// dynamic imports become chunks under chunks/, starting with the CommonJS
// banner. Plain JavaScript, so the CLI's build script can import it without a
// TypeScript loader.
import path from "node:path";
import { COMMONJS_SHIM } from "./commonjs-shim.mjs";

export const ESM_BUNDLE_OPTIONS = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  banner: { js: COMMONJS_SHIM },
  legalComments: "none",
  // A package's ES module build first: BullMQ's CommonJS build loses its classes when bundled as ESM (and,
  // loaded with import(), would reach the bundle as a default export only: see dynamicCommonJs).
  mainFields: ["module", "main"],
};

/**
 * The CommonJS modules a chunk of their own was made for, because something
 * loads them with `import()`, as paths relative to `root`. Code splitting
 * makes such a chunk `export default require_x()`, and the `import()`
 * resolves to `{ default: module.exports }` without the named exports Node's
 * own import would give (esbuild#3245): `const { GoogleAuth } = await
 * import("google-auth-library")` got undefined, and so would gaxios'
 * `(await import("https-proxy-agent")).HttpsProxyAgent` behind a proxy.
 * `workingDir` is the build's absWorkingDir, which the metafile's paths are
 * relative to.
 */
export function dynamicCommonJs(metafile, workingDir, root) {
  return Object.values(metafile.outputs)
    .map((output) => output.entryPoint)
    .filter((entry) => entry !== undefined && metafile.inputs[entry]?.format === "cjs")
    .map((entry) => path.relative(root, path.resolve(workingDir, entry)));
}

/** Throws naming each CommonJS module a bundle would load through a default-only chunk (see dynamicCommonJs). */
export function refuseDynamicCommonJs(metafile, workingDir, root, remedy) {
  const broken = dynamicCommonJs(metafile, workingDir, root);
  if (broken.length > 0) {
    throw new Error(
      `import() of CommonJS in the bundle: ${broken.join(", ")}; its chunk would export only \`default\`` +
        ` (esbuild#3245): ${remedy}`,
    );
  }
}
