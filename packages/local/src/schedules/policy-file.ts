import { readFile } from "node:fs/promises";
import { ConfigError, messageOf, parsePolicies, type RetentionPolicy } from "@table-archiver/core";
import { parse } from "yaml";

/**
 * The retention policies of the ARCHIVER_POLICIES file, YAML or JSON (JSON is
 * YAML): a list, or `retention:` holding one. Anything wrong (the file cannot
 * be read, is not YAML, or a policy is broken) is a ConfigError naming the
 * file and, for a policy, its table and field, so the worker refuses to start
 * before it changes any schedule (the CLI exits 2 on it, as on a bad variable).
 */
export async function readPolicyFile(path: string): Promise<RetentionPolicy[]> {
  const where = `ARCHIVER_POLICIES=${path}`;
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${where}: cannot be read: ${messageOf(error)}`, {
      field: "ARCHIVER_POLICIES",
      cause: error,
    });
  }
  let declared: unknown;
  try {
    declared = parse(text);
  } catch (error) {
    // The parser's first line says what and where (line, column); the rest is a drawing of the spot.
    throw new ConfigError(`${where}: is not YAML or JSON: ${messageOf(error).split("\n")[0]}`, {
      field: "ARCHIVER_POLICIES",
      cause: error,
    });
  }
  try {
    return parsePolicies(declared);
  } catch (error) {
    throw new ConfigError(`${where}: ${messageOf(error)}`, { field: "ARCHIVER_POLICIES", cause: error });
  }
}
