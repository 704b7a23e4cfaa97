// The esbuild options every ES module bundle of this repository shares, the
// archiver CLI's and each Cloud Function's: one Node 22 ES module whose
// dynamic imports become chunks under chunks/, starting with the CommonJS
// banner. Plain JavaScript, so the CLI's build script can import it without a
// TypeScript loader.
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
};
