import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

describe("readMessage: a message over 512 KiB", () => {
  // Not JSON: were it parsed, the answer would be "is not valid JSON"; its size is judged first.
  const big = `{${"x".repeat(600 * 1024)}`;
  const refusal = "message: is over 512 KiB (524288 bytes), the most a message may have";

  it("is refused from --message, naming message and the limit", async () => {
    await expect(readMessage({ message: big }, io(""))).rejects.toThrow(refusal);
  });

  it("is refused from stdin without reading it to the end", async () => {
    let produced = 0;
    const gigabyte = (function* () {
      for (; produced < 1024 * 1024; produced++) yield "x".repeat(1024);
    })();
    const source: CliIo = { ...io(""), stdin: Readable.from(gigabyte) };
    await expect(readMessage({}, source)).rejects.toThrow(refusal);
    // 1 KiB chunks: the limit's 512, one more, and what the stream had buffered ahead.
    expect(produced).toBeLessThan(600);
  });

  it("is refused from --file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "read-message-"));
    try {
      const file = join(dir, "big.json");
      await writeFile(file, big);
      await expect(readMessage({ file }, io(""))).rejects.toThrow(refusal);
      await expect(readMessage({ file: join(dir, "none.json") }, io(""))).rejects.toThrow(
        /^--file: cannot read /,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
