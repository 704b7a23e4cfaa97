// The banner every ES module bundle of this repository starts with: bundled
// CommonJS code (mysql2, ioredis, Google's clients) still calls require() for
// Node built-ins and reads __dirname/__filename. Plain JavaScript, so the CLI's
// build script can import it without a TypeScript loader.
export const COMMONJS_SHIM = [
  'import { createRequire as __archiverCreateRequire } from "node:module";',
  'import { fileURLToPath as __archiverFileURLToPath } from "node:url";',
  "const require = __archiverCreateRequire(import.meta.url);",
  "const __filename = __archiverFileURLToPath(import.meta.url);",
  "const __dirname = __archiverFileURLToPath(new URL('.', import.meta.url));",
].join("\n");
