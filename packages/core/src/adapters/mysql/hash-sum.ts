/** The exact sum of 64-bit hashes given as 32-bit halves, kept in doubles and folded into a BigInt before they could round. */
export class HashSum {
  private low = 0;
  private high = 0;
  private added = 0;
  private total = 0n;

  add(low: number, high: number): void {
    this.low += low;
    this.high += high;
    this.added += 1;
    if (this.added === 1 << 20) this.fold();
  }

  /** The sum as decimal text. */
  text(): string {
    this.fold();
    return this.total.toString();
  }

  reset(): void {
    this.fold();
    this.total = 0n;
  }

  private fold(): void {
    this.total += (BigInt(this.high) << 32n) + BigInt(this.low);
    this.low = 0;
    this.high = 0;
    this.added = 0;
  }
}
