import { describe, expect, it } from "vitest";
import {
  daysFromCivil,
  parseDateDays,
  parseDateTimeMicros,
  parseDecimalScaled,
  parseIntegerText,
  parseTimeMicros,
} from "./canonical-values";
import { formatDateTimeMicros, formatDays, formatTimeMicros } from "./testing/canonical-text";

describe("dates", () => {
  it("agrees with the JavaScript calendar from year 1000 to 9999", () => {
    for (const day of [
      "1000-01-01",
      "1582-10-04",
      "1899-12-31",
      "1970-01-01",
      "2000-02-29",
      "2024-12-31",
      "9999-12-31",
    ]) {
      const expected =
        Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8))) / 86_400_000;
      expect(parseDateDays(day)).toBe(expected);
      expect(formatDays(expected)).toBe(day);
    }
  });

  it("round-trips every day of a leap-year cycle", () => {
    const start = daysFromCivil(1999, 12, 25);
    for (let days = start; days < start + 4 * 366; days++) expect(parseDateDays(formatDays(days))).toBe(days);
  });

  it.each(["2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "2024-01-01 ", "20240101", ""])(
    "refuses %j",
    (text) => expect(() => parseDateDays(text)).toThrow(/not a canonical date/),
  );
});

describe("datetimes", () => {
  it.each([
    ["1970-01-01 00:00:00", 0n],
    ["1970-01-01 00:00:00.000001", 1n],
    ["1969-12-31 23:59:59.999999", -1n],
    ["2024-05-06 23:59:59.5", 1_715_039_999_500_000n],
    ["1000-01-01 00:00:00", -30_610_224_000_000_000n],
    ["9999-12-31 23:59:59.999999", 253_402_300_799_999_999n],
  ])("%s is %s microseconds", (text, micros) => {
    expect(parseDateTimeMicros(text)).toBe(micros);
  });

  it("formats with the column's fraction digits, never hiding non-zero digits", () => {
    expect(formatDateTimeMicros(1_715_039_999_500_000n, 6)).toBe("2024-05-06 23:59:59.500000");
    expect(formatDateTimeMicros(1_715_039_999_500_000n, 1)).toBe("2024-05-06 23:59:59.5");
    expect(formatDateTimeMicros(1_715_039_999_000_000n, 0)).toBe("2024-05-06 23:59:59");
    expect(formatDateTimeMicros(1_715_039_999_000_123n, 0)).toBe("2024-05-06 23:59:59.000123");
    expect(formatDateTimeMicros(-1n, 6)).toBe("1969-12-31 23:59:59.999999");
    expect(formatDateTimeMicros(-30_610_224_000_000_000n, 0)).toBe("1000-01-01 00:00:00");
  });

  it.each([
    "2024-05-06 24:00:00",
    "2024-05-06 12:60:00",
    "2024-05-06T12:00:00",
    "2024-05-06 12:00:00.1234567",
    "2024-05-06 12:00:00.",
    "2024-05-06 12:00:00+02",
    "2024-05-06",
  ])("refuses %j", (text) => expect(() => parseDateTimeMicros(text)).toThrow(/not a canonical datetime/));
});

describe("times", () => {
  it.each([
    ["838:59:59", 3_020_399_000_000n, 0],
    ["-838:59:59", -3_020_399_000_000n, 0],
    ["838:59:59.000001", 3_020_399_000_001n, 6],
    ["-00:00:01.500000", -1_500_000n, 6],
    ["00:00:00", 0n, 0],
    ["100:00:00.25", 360_000_250_000n, 2],
  ])("%s is %s microseconds and prints back", (text, micros, digits) => {
    expect(parseTimeMicros(text)).toBe(micros);
    expect(formatTimeMicros(micros, digits)).toBe(text);
  });

  it.each(["12:00", "12:60:00", "-:00:00", "12:00:00.", "1:2:3", "12345:00:00"])("refuses %j", (text) =>
    expect(() => parseTimeMicros(text)).toThrow(/not a canonical time/),
  );
});

describe("integers", () => {
  it.each([
    "0",
    "-1",
    "999999999999999",
    "-999999999999999",
    "9007199254740993",
    "18446744073709551615",
    "-9223372036854775808",
  ])("%s parses exactly", (text) => expect(parseIntegerText(text)).toBe(BigInt(text)));

  it.each(["", "-", "1e5", "0x10", " 1", "1.0", "12a"])("refuses %j", (text) =>
    expect(() => parseIntegerText(text)).toThrow(/not a canonical integer/),
  );
});

describe("decimals", () => {
  it.each([
    ["5", 12, 2, 500n],
    ["-0.50", 12, 2, -50n],
    ["9999999999.99", 12, 2, 999999999999n],
    ["0.1", 12, 2, 10n],
    ["1.230", 12, 2, 123n],
    ["0.12", 2, 2, 12n],
    ["00012.5", 5, 1, 125n],
    ["99999999999999999999", 20, 0, 99999999999999999999n],
    ["-9999999999999999999999999999.9999999999", 38, 10, -99999999999999999999999999999999999999n],
    ["123456789012.345", 18, 3, 123456789012345n],
    ["1234567890123.456", 18, 3, 1234567890123456n],
  ])("%s as DECIMAL(%i,%i) is %s", (text, precision, scale, scaled) => {
    expect(parseDecimalScaled(text, precision, scale)).toBe(scaled);
  });

  it("agrees with BigInt arithmetic on both sides of the fast path", () => {
    for (let i = 0; i < 2000; i++) {
      const whole = String(Math.floor(Math.random() * 10 ** (1 + (i % 16))));
      const fraction = String(Math.floor(Math.random() * 10_000)).padStart(4, "0");
      const text = `${i % 2 ? "-" : ""}${whole}.${fraction}`;
      const expected = BigInt(`${i % 2 ? "-" : ""}${whole}${fraction}`);
      expect(parseDecimalScaled(text, 38, 4)).toBe(expected);
    }
  });

  it.each([
    ["1.234", 12, 2],
    ["12345678901.00", 12, 2],
    ["1.5", 2, 2],
    ["1e5", 12, 2],
    [".5", 12, 2],
    ["5.", 12, 2],
    ["", 12, 2],
    ["-", 12, 2],
    ["1,5", 12, 2],
  ])("refuses %j as DECIMAL(%i,%i)", (text, precision, scale) => {
    expect(() => parseDecimalScaled(text, precision, scale)).toThrow(/not a canonical decimal/);
  });
});
