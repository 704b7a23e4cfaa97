import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type { ChunkTarget } from "../../../model/day-chunks";
import type { DayFigures } from "../../../model/day-figures";
import { integerKeyColumn } from "../../../model/table-schema";
import type { ReferencingKey } from "../../../ports/day-deleter";
import { warehouseFigures } from "../../records/held-copy";
import type { CleanupDeps } from "../cleanup-deps";
import { type DayVerdict, judgeDay } from "../judge-day";
import { referencesRefusal } from "../refusal";

/**
 * Gathers the day's copy record (unless given), warehouse figures and source
 * figures, the three at once, and judges them; a day that passes is then
 * refused if rows of another table reference it. Reads only.
 */
export async function verifyDay(
  deps: Pick<CleanupDeps, "source" | "ledger" | "warehouse" | "destinations" | "deleter">,
  input: {
    /** The day, the table as described now, and how its chunks are ranged (references are counted by them). */
    readonly target: ChunkTarget;
    /**
     * The copy record when the caller has read it already; `null` when it
     * read none (a dry run, which must not have the ledger recover one).
     */
    readonly record?: CopiedDayRecord | null;
    /** The source's figures when the caller counts them its own way (from the chunks it will delete). */
    readonly source?: Promise<DayFigures>;
    /** Foreign keys that reference the table: a day referenced through any of them is refused. */
    readonly referencingKeys?: readonly ReferencingKey[];
  },
): Promise<DayVerdict> {
  const { target } = input;
  const { schema } = target;
  const { column: filterColumn, day } = target.scope;
  const keyColumn = integerKeyColumn(schema)?.name;
  const readRecord =
    input.record !== undefined
      ? Promise.resolve(input.record ?? undefined)
      : deps.ledger.copiedDay(schema.name, day);
  const [record, source, warehouse] = await Promise.all([
    readRecord,
    input.source ?? deps.source.dayFigures(schema, filterColumn, day),
    readRecord.then((r) => (r ? warehouseFigures(deps, r, filterColumn, day, keyColumn) : undefined)),
  ]);
  const verdict = judgeDay({ table: schema.name, day, filterColumn, keyColumn, record, source, warehouse });
  const keys = input.referencingKeys ?? [];
  if (verdict.kind !== "ready" || keys.length === 0) return verdict;
  const counts = await deps.deleter.countReferences(target, keys);
  return referencesRefusal(`${schema.name} ${day}`, counts) ?? verdict;
}
