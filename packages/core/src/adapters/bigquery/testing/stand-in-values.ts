/** What BigQuery accepts for a column when it loads newline-delimited JSON, as far as the stand-in checks it. */
type Check = (value: unknown) => boolean;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const isIntegerText = (value: unknown): value is string => typeof value === "string" && /^-?\d+$/.test(value);

const decimal =
  (integerDigits: number, fractionDigits: number): Check =>
  (value) => {
    const text = typeof value === "number" ? String(value) : value;
    const match = typeof text === "string" ? /^-?0*(\d*)(?:\.(\d+))?$/.exec(text) : null;
    if (!match) return false;
    const [, whole = "", fraction = ""] = match;
    return whole.length <= integerDigits && fraction.replace(/0+$/, "").length <= fractionDigits;
  };

const DATETIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z| UTC|[+-]\d{2}(?::?\d{2})?)?$/;

const CHECKS: Readonly<Record<string, Check>> = {
  INTEGER: (value) =>
    (Number.isSafeInteger(value) || isIntegerText(value)) &&
    BigInt(value as string | number) >= INT64_MIN &&
    BigInt(value as string | number) <= INT64_MAX,
  FLOAT: (value) =>
    typeof value === "number" ||
    (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))),
  NUMERIC: decimal(29, 9),
  BIGNUMERIC: decimal(38, 38),
  STRING: (value) => typeof value === "string",
  BYTES: (value) =>
    typeof value === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0,
  DATE: (value) =>
    typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) && !value.startsWith("0000"),
  DATETIME: (value) => typeof value === "string" && DATETIME.test(value) && !value.startsWith("0000"),
  TIMESTAMP: (value) => typeof value === "string" && TIMESTAMP.test(value),
  JSON: () => true,
};

/** True when BigQuery would load `value` into a column of `type` (null always loads into NULLABLE). */
export function acceptsValue(type: string, value: unknown): boolean {
  if (value === null) return true;
  const check = CHECKS[type.toUpperCase()];
  return check ? check(value) : false;
}

/** The calendar day of a DATETIME or TIMESTAMP value, as its partition sees it. */
export function dayOf(value: unknown): string | undefined {
  return typeof value === "string" ? value.slice(0, 10) : undefined;
}
