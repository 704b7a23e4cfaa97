import { Readable, Writable } from "node:stream";
import type { CliIo } from "../cli-io";

/**
 * For tests: a terminal `columns` wide on which stdout (a TTY) and stderr
 * both land, in the order written. `lines()` is what a person would see: it
 * plays the writes back as a terminal does (`\r` to the line's start, `ESC[K`
 * clears to its end, `\n` to the next line, any other escape sequence is
 * ignored, a full line wraps), so a line written over the progress bar without clearing it, or a
 * bar drawn before a line ended, shows as one garbled line.
 */
/** What follows ESC in a control sequence: `[`, parameters, one letter (`[K`, `[?25l`). */
const CSI_TAIL = /^\[[0-9;?]*[A-Za-z]/;

export function fakeTerminal(env: CliIo["env"], columns = 100) {
  const writes: { channel: "out" | "err"; text: string }[] = [];
  const stream = (channel: "out" | "err") =>
    new Writable({
      write(chunk, _encoding, done) {
        writes.push({ channel, text: String(chunk) });
        done();
      },
    });
  const stdout = Object.assign(stream("out"), { isTTY: true, columns });
  const io: CliIo = { env, stdin: Readable.from([""]), stdout, stderr: stream("err") };
  return {
    io,
    writes,
    /** The screen's lines, the last one included even when it has no newline yet (the bar). */
    lines(): string[] {
      const screen: string[] = [""];
      let column = 0;
      const text = writes.map((w) => w.text).join("");
      for (let i = 0; i < text.length; i++) {
        const char = text[i] as string;
        const row = screen.length - 1;
        const line = screen[row] as string;
        if (char === "\r") column = 0;
        else if (char === "\n") {
          screen.push("");
          column = 0;
        } else if (char === "\x1b") {
          const sequence = `\x1b${CSI_TAIL.exec(text.slice(i + 1))?.[0] ?? ""}`;
          if (sequence === "\x1b[K") screen[row] = line.slice(0, column);
          i += sequence.length - 1;
        } else if (column === columns) {
          // A full line wraps: the character starts the next one.
          screen.push(char);
          column = 1;
        } else {
          screen[row] = line.slice(0, column).padEnd(column) + char + line.slice(column + 1);
          column += 1;
        }
      }
      if (screen.at(-1) === "") screen.pop();
      return screen;
    },
  };
}
