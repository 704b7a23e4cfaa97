import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { InvalidInputError, refuseOversizedMessage } from "@table-archiver/core";
import type { CliIo } from "./cli-io";

export interface MessageSource {
  readonly message?: string;
  readonly file?: string;
}

/**
 * The message JSON from `--message`, `--file F` or stdin (`-` or nothing
 * given). A message over MAX_MESSAGE_BYTES is refused before it is parsed, and
 * a file or stdin is read no further than that.
 */
export async function readMessage(source: MessageSource, io: CliIo): Promise<unknown> {
  if (source.message !== undefined && source.file !== undefined) {
    throw new InvalidInputError("--message", "give either --message or --file, not both");
  }
  if (source.message !== undefined) refuseOversizedMessage(Buffer.byteLength(source.message));
  const raw =
    source.message ??
    (source.file !== undefined && source.file !== "-"
      ? await readFileText(source.file)
      : await readText(io.stdin));
  if (raw.trim() === "") {
    throw new InvalidInputError("message", "no message given (use --message, --file or stdin)");
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidInputError("message", "is not valid JSON");
  }
}

async function readFileText(file: string): Promise<string> {
  try {
    return await readText(createReadStream(file));
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError("--file", `cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The stream's text; leaving the loop on a refusal closes the stream, unread past the limit. */
async function readText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    bytes += buffer.length;
    refuseOversizedMessage(bytes);
    chunks.push(buffer);
  }
  // Decoded whole, so a character split across chunks stays one (and a BOM goes, as before on stdin).
  return new TextDecoder().decode(Buffer.concat(chunks));
}
