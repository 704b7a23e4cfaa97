/**
 * Catches the JSON log lines (`{"severity":...}`) that code under test writes
 * to this process's stdout, as the functions log for Cloud Logging, so a
 * passing run does not print the errors a test provokes on purpose; the test
 * can read them in `lines`. Anything else written to stdout passes through.
 * Call `restore()` when done (a file's afterAll).
 */
export function captureLogLines(): { readonly lines: Record<string, unknown>[]; restore(): void } {
  const lines: Record<string, unknown>[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : String(chunk);
    if (!text.startsWith('{"severity":')) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    for (const line of text.split("\n").filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
    const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  return {
    lines,
    restore() {
      process.stdout.write = write;
    },
  };
}
