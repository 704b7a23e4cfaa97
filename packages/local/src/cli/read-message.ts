import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { InvalidInputError } from "@table-archiver/core";
import type { CliIo } from "./cli-io";

export interface MessageSource {
  readonly message?: string;
  readonly file?: string;
}

/** The message JSON from `--message`, `--file F` or stdin (`-` or nothing given). */
export async function readMessage(source: MessageSource, io: CliIo): Promise<unknown> {
  if (source.message !== undefined && source.file !== undefined) {
    throw new InvalidInputError("--message", "give either --message or --file, not both");
  }
  const raw =
    source.message ??
    (source.file !== undefined && source.file !== "-"
      ? await readFile(source.file, "utf8").catch((error: unknown) => {
          throw new InvalidInputError("--file", `cannot read ${source.file}: ${(error as Error).message}`);
        })
      : await text(io.stdin));
  if (raw.trim() === "") {
    throw new InvalidInputError("message", "no message given (use --message, --file or stdin)");
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidInputError("message", "is not valid JSON");
  }
}
