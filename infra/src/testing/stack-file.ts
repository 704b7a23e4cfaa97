import { readFileSync } from "node:fs";
import { parse } from "yaml";

/**
 * The configuration map a `Pulumi.<stack>.yaml` gives the program: the CLI
 * passes strings as they are and structured values (lists, objects) as JSON.
 */
export function readStackFile(file: string): Record<string, string> {
  const document = parse(readFileSync(file, "utf8")) as { config?: Record<string, unknown> } | null;
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(document?.config ?? {})) {
    config[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return config;
}
