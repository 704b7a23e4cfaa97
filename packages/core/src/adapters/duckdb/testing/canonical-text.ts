/**
 * Integers DuckDB stores (days since 1970-01-01, microseconds) -> canonical
 * text (see LogicalType): the inverse of canonical-values.ts, for reading a
 * day back in tests (read-day.ts). The archiver itself reads back only
 * figures and keys, which DuckDB computes or casts to text, never stored rows,
 * so this lives in test code.
 */

const MICROS_PER_SECOND = 1_000_000;

/** The date `days` after 1970-01-01 as `YYYY-MM-DD` (years 0000 to 9999). */
export function formatDays(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** `.ffffff` cut to `digits`, or longer when cutting would drop non-zero digits. */
function formatFraction(micros: number, digits: number): string {
  let text = String(micros).padStart(6, "0");
  while (text.length > digits && text.endsWith("0")) text = text.slice(0, -1);
  return text.length === 0 ? "" : `.${text.padEnd(digits, "0")}`;
}

/** Microseconds since the epoch -> `YYYY-MM-DD HH:MM:SS[.f]` with `digits` fraction digits. */
export function formatDateTimeMicros(micros: bigint, digits: number): string {
  const ofSecond = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const iso = new Date(Number((micros - BigInt(ofSecond)) / 1000n)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${formatFraction(ofSecond, digits)}`;
}

/** Signed microseconds -> MySQL TIME text `[-]HH:MM:SS[.f]` with `digits` fraction digits. */
export function formatTimeMicros(micros: bigint, digits: number): string {
  const negative = micros < 0n;
  const total = Number(negative ? -micros : micros);
  const seconds = Math.floor(total / MICROS_PER_SECOND);
  const clock = `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}`;
  return `${negative ? "-" : ""}${clock}${formatFraction(total % MICROS_PER_SECOND, digits)}`;
}
