import type { z } from "zod";
import { InvalidInputError } from "../../errors";

/**
 * Validates `input` with `schema`; the first problem becomes an
 * InvalidInputError naming its field (`source_tables[1]`, `day`), an unknown
 * field by its own name, and a problem with the whole value as `root`.
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown, root: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new InvalidInputError(root, "is invalid");
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  if (keys.length > 0) {
    throw new InvalidInputError(String(keys[0]), "is not a known field of this message");
  }
  throw new InvalidInputError(formatPath(issue.path) || root, issue.message);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) =>
      typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    "",
  );
}
