#!/usr/bin/env node
// `pnpm archiver`: runs the CLI's bundle (dist/cli, made by build-cli.mjs on
// `pnpm install` and `pnpm build`). A bundle older than any source file it
// was built from is built again first, so an edit never runs stale code.
import { readFileSync } from "node:fs";
import module from "node:module";

// V8 keeps the bundle's compiled code between runs (in the OS temp directory, or NODE_COMPILE_CACHE).
module.enableCompileCache?.();

const bundle = new URL("../dist/cli/archiver.js", import.meta.url);
const infoFile = new URL("../dist/cli/build-info.json", import.meta.url);

let info;
try {
  info = JSON.parse(readFileSync(infoFile, "utf8"));
} catch {
  info = undefined;
}
const { staleReason, buildCli } = await import("../build-cli.mjs");
const stale = staleReason(info);
if (stale) {
  process.stderr.write(`archiver: building the CLI (${stale}) ...\n`);
  await buildCli();
}
await import(bundle.href);
