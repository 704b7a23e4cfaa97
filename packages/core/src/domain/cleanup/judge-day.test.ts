import { describe, expect, it } from "vitest";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DayFigures } from "../../model/day-figures";
import { canonicalInteger, sameFigures } from "../../model/day-figures";
import { type DayEvidence, describeChange, judgeDay } from "./judge-day";
import { referencesRefusal } from "./refusal";

/** A keyed day as the source counts it: with the content fingerprint of its rows. */
const keyed = (
  rows: number,
  sum: string,
  min: string,
  max: string,
  fingerprint = "9876543210",
): DayFigures => ({
  rows,
  fingerprint,
  key: { column: "id", count: rows, sum, min, max },
});

/** The same figures as the warehouse counts them: it never computes a fingerprint. */
const inWarehouse = ({ fingerprint: _, ...figures }: DayFigures): DayFigures => figures;

const record = (figures: DayFigures, filterColumn = "created_at"): CopiedDayRecord => ({
  day: "2024-01-01",
  destination: "orders",
  filterColumn,
  figures,
  zeroDates: 0,
  bytes: 0,
  durationMs: 0,
  copiedAt: "2026-01-01T00:00:00.000Z",
});

const copied = keyed(1000, "500500", "1", "1000");

function evidence(overrides: Partial<DayEvidence> = {}): DayEvidence {
  return {
    table: "orders",
    day: "2024-01-01",
    filterColumn: "created_at",
    keyColumn: "id",
    record: record(copied),
    source: copied,
    warehouse: inWarehouse(copied),
    ...overrides,
  };
}

describe("judgeDay", () => {
  it("passes a day whose source, warehouse and record agree", () => {
    expect(judgeDay(evidence())).toMatchObject({ kind: "ready", figures: copied });
  });

  it("refuses a day with a late row in the source, naming both figures", () => {
    const verdict = judgeDay(evidence({ source: keyed(1002, "502503", "1", "1002") }));
    expect(verdict).toMatchObject({ kind: "refused", refusal: "changed" });
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/rows added: 2 rows more than copied/);
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/source 1002 rows.*warehouse 1000 rows/);
  });

  it("refuses a day whose rows changed in place: same count and keys, another fingerprint", () => {
    const verdict = judgeDay(evidence({ source: keyed(1000, "500500", "1", "1000", "9876543211") }));
    expect(verdict).toMatchObject({ kind: "refused", refusal: "changed" });
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/rows changed: .*content differs/);
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/recopy_changed_days/);
  });

  it("refuses a day copied before fingerprints existed, saying how to copy it again", () => {
    const verdict = judgeDay(evidence({ record: record(inWarehouse(copied)) }));
    expect(verdict).toMatchObject({ kind: "refused", refusal: "not-fingerprinted" });
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/"recopy_changed_days": true/);
  });

  it("refuses a warehouse missing a row even when the source looks fine", () => {
    const verdict = judgeDay(evidence({ warehouse: keyed(999, "499500", "1", "999") }));
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/warehouse 999 rows/);
  });

  it.each([
    ["the key sum", keyed(1000, "500501", "1", "1000")],
    ["the smallest key", keyed(1000, "500500", "0", "1000")],
    ["the largest key", keyed(1000, "500500", "1", "1001")],
  ])("refuses when only %s differs", (_what, source) => {
    expect(judgeDay(evidence({ source })).kind).toBe("refused");
  });

  it("refuses a day without a copy record, or copied by another column", () => {
    expect(judgeDay(evidence({ record: undefined })).kind).toBe("refused");
    const other = judgeDay(evidence({ record: record(copied, "updated_at") }));
    expect(other.kind === "refused" && other.reason).toMatch(/copied by column "updated_at"/);
  });

  it("refuses a keyed table whose record has no key figures: it cannot be checked by key", () => {
    const verdict = judgeDay(evidence({ record: record({ rows: 1000 }) }));
    expect(verdict.kind === "refused" && verdict.reason).toMatch(/no key figures for "id"/);
  });

  it("verifies a table without a key by rows and fingerprint", () => {
    const rows = { rows: 10, fingerprint: "42" };
    const keyless = { keyColumn: undefined, record: record(rows), warehouse: { rows: 10 } };
    expect(judgeDay(evidence({ ...keyless, source: rows })).kind).toBe("ready");
    expect(judgeDay(evidence({ ...keyless, source: { rows: 11, fingerprint: "50" } })).kind).toBe("refused");
    expect(judgeDay(evidence({ ...keyless, source: { rows: 10, fingerprint: "43" } })).kind).toBe("refused");
  });

  it("calls a day with no source rows and a full warehouse copy already clean", () => {
    const empty = keyed(0, "0", "", "");
    expect(judgeDay(evidence({ source: empty })).kind).toBe("already-clean");
    // ...but not when the warehouse has lost rows too.
    expect(judgeDay(evidence({ source: empty, warehouse: keyed(999, "499500", "1", "999") })).kind).toBe(
      "refused",
    );
  });
});

describe("describeChange", () => {
  it("says whether rows were added, gone, replaced under other keys, or changed in place", () => {
    expect(describeChange(keyed(3, "6", "1", "3"), keyed(1, "1", "1", "1"))).toBe(
      "rows added: 2 rows more than copied",
    );
    expect(describeChange(keyed(1, "1", "1", "1"), keyed(2, "3", "1", "2"))).toBe(
      "rows gone: 1 row fewer than copied",
    );
    expect(describeChange(keyed(2, "4", "1", "3"), keyed(2, "3", "1", "2"))).toMatch(/^rows replaced/);
    expect(describeChange(keyed(2, "3", "1", "2", "1"), keyed(2, "3", "1", "2", "2"))).toMatch(
      /^rows changed/,
    );
  });
});

describe("referencesRefusal", () => {
  const key = (onDelete: string, selfReferencing = false) => ({
    constraint: "fk_payment_rental",
    childSchema: "shop",
    childTable: selfReferencing ? "rental" : "payment",
    childColumns: ["rental_id"],
    parentColumns: ["id"],
    onDelete,
    selfReferencing,
  });

  it("passes a day nothing references", () => {
    expect(referencesRefusal("rental 2024-01-01", [{ key: key("CASCADE"), rows: 0 }])).toBeUndefined();
  });

  it.each([
    ["CASCADE", /would delete those rows too/],
    ["SET NULL", /would set their rental_id to NULL/],
    ["RESTRICT", /would refuse the delete/],
    ["NO ACTION", /would refuse the delete/],
  ])("refuses a referenced day under %s, naming the key, the child table and the rows", (rule, effect) => {
    const verdict = referencesRefusal("rental 2024-01-01", [{ key: key(rule), rows: 319 }]);
    expect(verdict).toMatchObject({ kind: "refused", refusal: "foreign-key" });
    expect(verdict?.reason).toMatch(
      /319 rows of payment reference these rows through foreign key fk_payment_rental/,
    );
    expect(verdict?.reason).toMatch(effect);
    expect(verdict?.reason).toMatch(/Archive and clean the referencing table first/);
  });
});

describe("sameFigures and canonicalInteger", () => {
  it("compares keys beyond 2^53 exactly, whatever the spelling", () => {
    const a = keyed(2, "36893488147419103231", "18446744073709551614", "18446744073709551615");
    const b = keyed(2, "36893488147419103231.0", "18446744073709551614", "018446744073709551615");
    expect(sameFigures(a, b)).toBe(true);
    expect(
      sameFigures(a, keyed(2, "36893488147419103232", "18446744073709551614", "18446744073709551615")),
    ).toBe(false);
  });

  it("never equates text that is not an integer with a number", () => {
    expect(canonicalInteger("12.5")).toBe("12.5");
    expect(canonicalInteger("-007")).toBe("-7");
    expect(canonicalInteger("")).toBe("");
  });
});
