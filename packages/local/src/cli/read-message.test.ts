import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io";
import { readMessage } from "./read-message";

const io = (stdin: string): CliIo => ({
  env: {},
  stdin: Readable.from([stdin]),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
});

describe("readMessage", () => {
  it.each(["", "  \n"])(
    "says no message was given for an empty stdin (%j), not that it is bad JSON",
    async (stdin) => {
      await expect(readMessage({}, io(stdin))).rejects.toThrow(
        "message: no message given (use --message, --file or stdin)",
      );
    },
  );

  it("still calls text that is not JSON not valid JSON", async () => {
    await expect(readMessage({ message: "{oops" }, io(""))).rejects.toThrow("message: is not valid JSON");
  });
});
