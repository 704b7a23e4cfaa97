import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import {
  findBoundaryViolations,
  formatViolation,
  importsOf,
  readSources,
  readWorkspace,
  type WorkspacePackage,
} from "./package-boundaries";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// Fixture sources are joined from parts so that this file's own text holds no import the check would refuse.
const from = (specifier: string) => `${"im"}port { x } from "${specifier}";`;

const packages: WorkspacePackage[] = [
  { name: "root", dir: "", exports: ["."], dependsOn: ["@t/core", "@t/reader", "@t/local"] },
  { name: "@t/core", dir: "packages/core", exports: [".", "./config", "./testing"], dependsOn: [] },
  { name: "@t/reader", dir: "packages/reader", exports: ["."], dependsOn: ["@t/core"] },
  { name: "@t/local", dir: "packages/local", exports: ["."], dependsOn: ["@t/core", "@t/reader"] },
  { name: "@t/infra", dir: "infra", exports: ["."], dependsOn: [] },
];

function violations(file: string, ...lines: string[]): string[] {
  return findBoundaryViolations([{ path: file, text: lines.join("\n") }], packages).map(formatViolation);
}

describe("package boundaries", () => {
  test("finds static, multi-line, side-effect, re-export and dynamic imports, each on its line", () => {
    const text = [
      `${"im"}port type { A } from "a";`,
      `${"im"}port {`,
      "  b,",
      `} from "b";`,
      `${"im"}port "c";`,
      `${"ex"}port * from "d";`,
      `const e = await ${"im"}port("e");`,
      `${"im"}port f, { g } from 'f';`,
    ].join("\n");
    expect(importsOf(text)).toEqual([
      { specifier: "a", line: 1 },
      { specifier: "b", line: 4 },
      { specifier: "c", line: 5 },
      { specifier: "d", line: 6 },
      { specifier: "e", line: 7 },
      { specifier: "f", line: 8 },
    ]);
  });

  test("refuses a relative path into another package, naming file, line and what to import", () => {
    expect(violations("scripts/bench/a.ts", "", from("../../packages/core/src/config/env-schema"))).toEqual([
      'scripts/bench/a.ts:2: "../../packages/core/src/config/env-schema" reaches into packages/core/ by path; ' +
        "import @t/core, @t/core/config, @t/core/testing instead",
    ]);
    expect(
      violations("infra/src/config/x.ts", from("../../../packages/core/src/ports/task-queue")),
    ).toHaveLength(1);
    expect(violations("packages/local/src/x.ts", from("../../reader/src/http-error"))).toHaveLength(1);
  });

  test("refuses a subpath a package does not export, such as a function package's internals", () => {
    expect(violations("packages/local/src/server/x.ts", from("@t/reader/src/http-error"))).toEqual([
      'packages/local/src/server/x.ts:1: "@t/reader/src/http-error" @t/reader does not export ./src/http-error ' +
        "(its package.json exports @t/reader)",
    ]);
    expect(violations("scripts/x.ts", from("@t/core/src/index"))).toHaveLength(1);
  });

  test("refuses a workspace package the importer does not depend on", () => {
    expect(violations("infra/src/x.ts", from("@t/core/config"))).toEqual([
      'infra/src/x.ts:1: "@t/core/config" infra does not list @t/core in its package.json',
    ]);
  });

  test("allows exported entry points, paths within a package, and the root's shared scripts", () => {
    expect(
      violations(
        "packages/local/src/cli/x.ts",
        from("@t/core"),
        from("@t/core/config"),
        from("@t/reader"),
        from("../server/y"),
        from("../../../../scripts/commonjs-shim.mjs"),
        from("node:fs"),
        from("zod"),
      ),
    ).toEqual([]);
    expect(violations("packages/core/src/a/b.ts", from("../../testing/z"), from("@t/core/testing"))).toEqual(
      [],
    );
  });

  test("no file in the repository crosses a package boundary", () => {
    const found = findBoundaryViolations(readSources(repoRoot), readWorkspace(repoRoot)).map(formatViolation);
    expect(found, `imports that cross a package boundary:\n${found.join("\n")}`).toEqual([]);
  });
});
