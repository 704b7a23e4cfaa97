import type { z } from "zod";
import { InvalidInputError } from "../../errors";
import { excerpt } from "../../errors/excerpt";

/** Longest message a schema's problem may add to the field's name: a longer one echoes the input. */
const MAX_PROBLEM_LENGTH = 240;

/**
 * Validates `input` with `schema`; the first problem becomes an
 * InvalidInputError naming its field (`source_tables[1]`, `day`), and a
 * problem with the whole value as `root`. An unknown field comes first, by its
 * own name, with the closest known field it may be a misspelling of:
 * `source_table: unknown field; did you mean "source_tables"?` (a misspelt
 * required field would otherwise read as that field missing). A key is named
 * by its first 64 characters only, and a schema's problem is cut to
 * MAX_PROBLEM_LENGTH, so an error never grows with the input it refuses.
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown, root: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const unknown = issues.find((issue) => issue.code === "unrecognized_keys" && issue.keys.length > 0);
  if (unknown?.code === "unrecognized_keys") {
    const key = String(unknown.keys[0]);
    const field = formatPath([...unknown.path, excerpt(key)]);
    const known = knownKeys(schema, unknown.path);
    const given = objectAt(input, unknown.path);
    const suggestion = closest(
      key,
      known.filter((name) => !(given && Object.hasOwn(given, name))),
    );
    const hint = suggestion
      ? `; did you mean "${suggestion}"?`
      : known.length > 0
        ? ` (known fields: ${known.join(", ")})`
        : "";
    throw new InvalidInputError(field, `unknown field${hint}`);
  }
  const issue = issues[0];
  if (!issue) throw new InvalidInputError(root, "is invalid");
  throw new InvalidInputError(formatPath(issue.path) || root, excerpt(issue.message, MAX_PROBLEM_LENGTH));
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) =>
      typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    "",
  );
}

/** Zod's definition of a schema, as far as finding an object's fields needs it. */
interface Definition {
  readonly type?: string;
  readonly shape?: Readonly<Record<string, unknown>>;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly options?: readonly unknown[];
  readonly element?: unknown;
  readonly left?: unknown;
  readonly right?: unknown;
  readonly getter?: () => unknown;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

/** The object schemas `schema` may be at `path` (unions give several). */
function objectsAt(schema: unknown, path: readonly PropertyKey[], depth = 0): Definition[] {
  const def = (schema as { _zod?: { def?: Definition } } | undefined)?._zod?.def;
  if (!def || depth > 32) return [];
  const next = (inner: unknown) => objectsAt(inner, path, depth + 1);
  if (def.type && WRAPPERS.has(def.type)) return next(def.innerType);
  if (def.type === "pipe") return next(def.in);
  if (def.type === "lazy" && def.getter) return next(def.getter());
  if (def.type === "union") return (def.options ?? []).flatMap(next);
  if (def.type === "intersection") return [...next(def.left), ...next(def.right)];
  if (path.length === 0) return def.type === "object" ? [def] : [];
  const [head, ...rest] = path;
  if (def.type === "array" && typeof head === "number") return objectsAt(def.element, rest, depth + 1);
  if (def.type === "object" && typeof head === "string") return objectsAt(def.shape?.[head], rest, depth + 1);
  return [];
}

function knownKeys(schema: unknown, path: readonly PropertyKey[]): string[] {
  return [...new Set(objectsAt(schema, path).flatMap((def) => Object.keys(def.shape ?? {})))];
}

function objectAt(input: unknown, path: readonly PropertyKey[]): object | undefined {
  let value = input;
  for (const part of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return typeof value === "object" && value !== null ? value : undefined;
}

/** Characters a key may exceed the longest candidate by and still be its slip (`s_o_u_r_c_e` included). */
const SLIP_MARGIN = 16;

/**
 * The candidate `key` most likely misspells: fewest edits (a swap of two
 * neighbours counts as one), ignoring case, `_` and `-`, and close enough to
 * be a slip (at most a third of the longer name, at least one edit). A key
 * longer than every candidate by more than SLIP_MARGIN is a slip of none and
 * is compared with none: the distance takes time and memory in proportion to
 * the product of the lengths, and a key may be megabytes long.
 */
export function closest(key: string, candidates: readonly string[]): string | undefined {
  const longest = Math.max(0, ...candidates.map((name) => name.length));
  if (key.length > longest + SLIP_MARGIN) return undefined;
  const plain = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = Math.min(
      editDistance(key.toLowerCase(), name.toLowerCase()),
      editDistance(plain(key), plain(name)),
    );
    const allowed = Math.max(1, Math.floor(Math.max(key.length, name.length) / 3));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
