/**
 * Reads a `multipart/related` upload as the BigQuery client sends it (a JSON
 * part with the job, then the data part) while it arrives, so a stand-in can
 * take uploads of any size: data is handed on chunk by chunk and never held.
 */
export interface MultipartHandlers {
  onMetadata(metadata: unknown): void;
  onData(chunk: Buffer): void;
  /** Called once the closing boundary arrived; never for a truncated upload. */
  onEnd(): void;
}

export class MultipartReader {
  private readonly headerEnd = Buffer.from("\r\n\r\n");
  private readonly closing: Buffer;
  private readonly partStart: Buffer;
  private state: "head" | "data" | "done" = "head";
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    boundary: string,
    private readonly handlers: MultipartHandlers,
  ) {
    this.closing = Buffer.from(`\r\n--${boundary}--`);
    this.partStart = Buffer.from(`\r\n--${boundary}\r\n`);
  }

  /** True once the closing boundary was read. */
  get complete(): boolean {
    return this.state === "done";
  }

  push(chunk: Buffer): void {
    if (this.state === "done") return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.state === "head") this.readHead();
    if (this.state === "data") this.readData();
  }

  /** Parses the first part (job metadata) and the second part's headers. */
  private readHead(): void {
    const firstBody = this.pending.indexOf(this.headerEnd);
    if (firstBody < 0) return;
    const firstEnd = this.pending.indexOf(this.partStart, firstBody);
    if (firstEnd < 0) return;
    const dataStart = this.pending.indexOf(this.headerEnd, firstEnd + this.partStart.length);
    if (dataStart < 0) return;
    this.handlers.onMetadata(JSON.parse(this.pending.subarray(firstBody + 4, firstEnd).toString("utf8")));
    this.pending = this.pending.subarray(dataStart + 4);
    this.state = "data";
  }

  /** Hands on data up to the closing boundary, keeping back a tail that could be its start. */
  private readData(): void {
    const end = this.pending.indexOf(this.closing);
    if (end >= 0) {
      if (end > 0) this.handlers.onData(this.pending.subarray(0, end));
      this.pending = Buffer.alloc(0);
      this.state = "done";
      this.handlers.onEnd();
      return;
    }
    const keep = Math.min(this.pending.length, this.closing.length - 1);
    const ready = this.pending.length - keep;
    if (ready > 0) {
      this.handlers.onData(this.pending.subarray(0, ready));
      this.pending = Buffer.from(this.pending.subarray(ready));
    }
  }
}

/** The boundary of a `multipart/related; boundary=...` content type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /boundary="?([^";]+)"?/.exec(contentType ?? "");
  return match?.[1];
}
