/**
 * Exact conversions from canonical values (see LogicalType) to the integers
 * DuckDB stores: days since 1970-01-01, microseconds, scaled decimals.
 * Nothing here rounds: text that does not fit is refused. The way back is
 * needed only to read a day back in tests: testing/canonical-text.ts.
 *
 * DuckDB's own casts from VARCHAR cannot stand in for these parsers: they
 * round (`'1.234'::DECIMAL(12,2)` is 1.23), read `24:00:00` as the next day,
 * drop a `+02` offset, and accept `1e5`, `.5` or a `T` separator. Parsers
 * read character codes instead of regular expressions because they run once
 * per value on the append path (regular expressions and BigInt(text) take
 * about twice as long).
 */

import { daysInMonth } from "../../model/calendar-day";

const MICROS_PER_SECOND = 1_000_000;
const INTEGER_TEXT = /^-?\d{1,39}$/;
/** Digits a double holds exactly, whatever they are. */
const EXACT_DIGITS = 15;

/** A canonical value that does not have the form its type promises. */
export class CanonicalValueError extends Error {}

function refuse(kind: string, text: string): never {
  throw new CanonicalValueError(`${JSON.stringify(text)} is not a canonical ${kind}`);
}

function digit(text: string, index: number, kind: string): number {
  const code = text.charCodeAt(index) - 48;
  if (code < 0 || code > 9) refuse(kind, text);
  return code;
}

function twoDigits(text: string, index: number, kind: string): number {
  return digit(text, index, kind) * 10 + digit(text, index + 1, kind);
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** `YYYY-MM-DD` -> days since 1970-01-01. */
export function parseDateDays(text: string): number {
  if (text.length !== 10) refuse("date", text);
  return datePartDays(text, "date");
}

function datePartDays(text: string, kind: string): number {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) refuse(kind, text);
  const year = twoDigits(text, 0, kind) * 100 + twoDigits(text, 2, kind);
  const month = twoDigits(text, 5, kind);
  const day = twoDigits(text, 8, kind);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) refuse(kind, text);
  return daysFromCivil(year, month, day);
}

/** Reads `.f{1,6}` at `index` (or nothing at the end of the text) as microseconds. */
function fraction(text: string, index: number, kind: string): number {
  if (index === text.length) return 0;
  const digits = text.length - index - 1;
  if (text.charCodeAt(index) !== 46 || digits < 1 || digits > 6) refuse(kind, text);
  let micros = 0;
  for (let i = index + 1; i < text.length; i++) micros = micros * 10 + digit(text, i, kind);
  return micros * 10 ** (6 - digits);
}

function toBigMicros(seconds: number, micros: number): bigint {
  const total = seconds * MICROS_PER_SECOND + micros;
  return Number.isSafeInteger(total)
    ? BigInt(total)
    : BigInt(seconds) * BigInt(MICROS_PER_SECOND) + BigInt(micros);
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` -> microseconds since 1970-01-01 00:00:00. */
export function parseDateTimeMicros(text: string): bigint {
  const kind = "datetime";
  if (
    text.length < 19 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    refuse(kind, text);
  }
  const days = datePartDays(text, kind);
  const hours = twoDigits(text, 11, kind);
  const minutes = twoDigits(text, 14, kind);
  const seconds = twoDigits(text, 17, kind);
  if (hours > 23 || minutes > 59 || seconds > 59) refuse(kind, text);
  const micros = fraction(text, 19, kind);
  return toBigMicros(days * 86_400 + hours * 3600 + minutes * 60 + seconds, micros);
}

/** `[-]H+:MM:SS[.ffffff]` (MySQL TIME) -> signed microseconds. */
export function parseTimeMicros(text: string): bigint {
  const kind = "time";
  const negative = text.charCodeAt(0) === 45;
  let index = negative ? 1 : 0;
  let hours = 0;
  const hoursStart = index;
  while (index < text.length && text.charCodeAt(index) !== 58) {
    hours = hours * 10 + digit(text, index, kind);
    index++;
  }
  if (index === hoursStart || index - hoursStart > 4 || text.charCodeAt(index + 3) !== 58) refuse(kind, text);
  const minutes = twoDigits(text, index + 1, kind);
  const seconds = twoDigits(text, index + 4, kind);
  if (minutes > 59 || seconds > 59) refuse(kind, text);
  const micros = fraction(text, index + 6, kind);
  const total = (hours * 3600 + minutes * 60 + seconds) * MICROS_PER_SECOND + micros;
  return BigInt(negative ? -total : total);
}

/** An integer written in decimal (`-12`, `18446744073709551615`) -> bigint. */
export function parseIntegerText(text: string): bigint {
  const negative = text.charCodeAt(0) === 45;
  const first = negative ? 1 : 0;
  // Up to 15 digits are exact in a double, which is cheaper than BigInt(text).
  if (text.length > first && text.length - first <= EXACT_DIGITS) {
    let value = 0;
    for (let index = first; index < text.length; index++) value = value * 10 + digit(text, index, "integer");
    return BigInt(negative ? -value : value);
  }
  if (!INTEGER_TEXT.test(text)) refuse("integer", text);
  return BigInt(text);
}

/**
 * Exact decimal text -> the integer `value * 10^scale`, refusing text with more
 * than `precision - scale` integer digits or non-zero digits beyond `scale`.
 */
export function parseDecimalScaled(text: string, precision: number, scale: number): bigint {
  const kind = `decimal(${precision},${scale})`;
  const negative = text.charCodeAt(0) === 45;
  let index = negative ? 1 : 0;
  const wholeStart = index;
  let value = 0;
  let integerDigits = 0;
  for (; index < text.length && text.charCodeAt(index) !== 46; index++) {
    const d = digit(text, index, kind);
    if (integerDigits > 0 || d > 0) integerDigits++;
    value = value * 10 + d;
  }
  if (index === wholeStart || index === text.length - 1) refuse(kind, text);
  let kept = 0;
  for (index++; index < text.length; index++) {
    const d = digit(text, index, kind);
    if (kept < scale) {
      value = value * 10 + d;
      kept++;
    } else if (d !== 0) {
      refuse(`${kind} (it does not fit without rounding)`, text);
    }
  }
  if (integerDigits > precision - scale) refuse(`${kind} (it does not fit without rounding)`, text);
  if (integerDigits + scale <= EXACT_DIGITS) {
    const scaled = value * 10 ** (scale - kept);
    return BigInt(negative ? -scaled : scaled);
  }
  const [whole = "", fractional = ""] = text.slice(wholeStart).split(".");
  return BigInt(`${negative ? "-" : ""}${whole}${fractional.slice(0, scale).padEnd(scale, "0")}`);
}
