import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { envSchema } from "@table-archiver/core/config";
import { describe, expect, it } from "vitest";
import { localEnvSchema } from "./local-env-schema";

/**
 * docs/configuration.md against the code: its first table whose header starts
 * with "Variable" must name exactly the variables of core's envSchema and of
 * the local deployment's localEnvSchema, each with its default; any other
 * "Variable" table (the test and bench variables) may only name variables
 * some source file reads from the environment. It lives in packages/local,
 * the one package that sees both schemas.
 */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const DOC_PATH = join(ROOT, "docs", "configuration.md");
const doc = readFileSync(DOC_PATH, "utf8");
const schemaNames = [...Object.keys(envSchema.shape), ...Object.keys(localEnvSchema.shape)];

interface VariableRow {
  readonly names: readonly string[];
  readonly cells: readonly string[];
}

/** Cells of a Markdown table line; `\|` inside a cell is not a separator. */
function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

const isDivider = (line: string) => /^\|[\s:|-]+\|$/.test(line.trim());
const VARIABLE = /`([A-Z][A-Z0-9_]*)`/g;

/** Every table whose first header cell is "Variable", as the rows that name variables in their first cell. */
function variableTables(markdown: string): VariableRow[][] {
  const lines = markdown.split("\n");
  const tables: VariableRow[][] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.trim().startsWith("|") || !isDivider(lines[i + 1] ?? "")) continue;
    const header = cellsOf(line);
    let end = i + 2;
    const rows: VariableRow[] = [];
    for (; end < lines.length && (lines[end] ?? "").trim().startsWith("|"); end++) {
      const cells = cellsOf(lines[end] ?? "");
      const names = [...(cells[0] ?? "").matchAll(VARIABLE)].map((match) => match[1] as string);
      if (names.length > 0) rows.push({ names, cells });
    }
    if (header[0]?.toLowerCase() === "variable") tables.push(rows);
    i = end - 1;
  }
  return tables;
}

/** TypeScript sources outside node_modules and build output. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && path !== fileURLToPath(import.meta.url)) files.push(path);
  }
  return files;
}

/**
 * Whether some source reads `name` from an environment object: `process.env.NAME`,
 * `env.NAME`, `env["NAME"]`, or a file that looks variables up by name (`env[variable]`)
 * and names `"NAME"` in a string.
 */
function readByCode(name: string, sources: readonly string[]): boolean {
  const read = new RegExp(`\\benv(?:\\.${name}\\b|\\[\\s*["'\`]${name}["'\`]\\s*\\])`);
  const named = new RegExp(`["'\`]${name}["'\`]`);
  return sources.some(
    (source) => read.test(source) || (/\benv\[\s*\w+\s*\]/.test(source) && named.test(source)),
  );
}

const tables = variableTables(doc);
const [mainTable = [], ...otherTables] = tables;
const mainNames = mainTable.flatMap((row) => row.names);

describe("docs/configuration.md", () => {
  it("has a variables table", () => {
    expect(mainNames.length, `no table with a "Variable" column in ${DOC_PATH}`).toBeGreaterThan(0);
  });

  it("documents every variable the configuration schema reads", () => {
    const missing = schemaNames.filter((name) => !mainNames.includes(name));
    expect(missing, "variables of the schemas missing from the doc's variables table").toEqual([]);
  });

  it("documents no variable the configuration schema does not read", () => {
    const unknown = mainNames.filter((name) => !schemaNames.includes(name));
    expect(unknown, "variables in the doc's variables table that no schema reads").toEqual([]);
  });

  it("lists each variable once", () => {
    const twice = mainNames.filter((name, index) => mainNames.indexOf(name) !== index);
    expect(twice, "variables listed more than once").toEqual([]);
  });

  it("gives every variable its default and a meaning", () => {
    const defaults = { ...envSchema.parse({}), ...localEnvSchema.parse({}) } as Record<string, unknown>;
    const wrong: string[] = [];
    for (const row of mainTable) {
      const [, defaultCell = "", meaning = ""] = row.cells;
      if (meaning === "") wrong.push(`${row.names.join(", ")}: no meaning`);
      for (const name of row.names) {
        const value = defaults[name];
        if (value === undefined) {
          if (defaultCell === "") wrong.push(`${name}: empty default cell (write "unset")`);
        } else if (!defaultCell.includes(`\`${String(value)}\``)) {
          wrong.push(`${name}: default should read \`${String(value)}\`, the doc says "${defaultCell}"`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("names no other variable that the code does not read", () => {
    const sources = ["packages", "scripts", "infra"].flatMap((dir) =>
      sourceFiles(join(ROOT, dir)).map((path) => readFileSync(path, "utf8")),
    );
    const others = otherTables.flat().flatMap((row) => row.names);
    const assigned = [...doc.matchAll(/`([A-Z][A-Z0-9_]*)=[^`]*`/g)].map((match) => match[1] as string);
    const unread = [...new Set([...others, ...assigned])].filter(
      (name) => !schemaNames.includes(name) && !readByCode(name, sources),
    );
    expect(unread, "variables the doc names that no source file reads").toEqual([]);
  });
});
