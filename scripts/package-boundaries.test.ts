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

  const layers = "errors < model < ports < domain < config < adapters < runtime < testing";
  test.each([
    ["ports/a.ts", "../domain/days/b", "ports/ imports domain/"],
    ["domain/copy/a.ts", "../../adapters/mysql/b", "domain/ imports adapters/"],
    ["domain/a.ts", "../config/env-schema", "domain/ imports config/"],
    ["adapters/duckdb/a.ts", "../../testing/fakes/b", "adapters/ imports testing/"],
    ["adapters/bigquery/testing/a.ts", "../../../testing/b", "adapters/ imports testing/"],
    ["model/a.ts", "../index", "model/ imports index"],
  ])("inside core, %s may not import %s: a lower layer imports a higher one", (file, specifier, what) => {
    expect(violations(`packages/core/src/${file}`, from(specifier))).toEqual([
      `packages/core/src/${file}:1: "${specifier}" ${what} (a lower layer may not import a higher one: ${layers})`,
    ]);
  });

  test.each([
    ["domain/copy/a.test.ts", "../../testing/fakes/b"],
    ["domain/copy/a.ts", "../days/b"],
    ["domain/a.ts", "../ports/b"],
    ["adapters/mysql/a.ts", "../../domain/copy/b"],
    ["adapters/duckdb/testing/a.ts", "../b"],
    ["runtime/a.ts", "../adapters/redis/b"],
    ["index.ts", "./runtime/b"],
    ["testing/a.ts", "../adapters/bigquery/testing/b"],
  ])("inside core, %s may import %s: the same or a lower layer, or from a test file", (file, specifier) => {
    expect(violations(`packages/core/src/${file}`, from(specifier))).toEqual([]);
  });

  test("no file in the repository crosses a package boundary or, inside core, a layer", () => {
    const found = findBoundaryViolations(readSources(repoRoot), readWorkspace(repoRoot)).map(formatViolation);
    expect(found, `imports that cross a package boundary or a layer:\n${found.join("\n")}`).toEqual([]);
  });
});
