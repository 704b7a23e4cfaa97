import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { type DayFigures, sameFigures } from "../../model/day-figures";
import type { DestinationRules } from "../../model/destination";
import { type Destination, parseDestination } from "../../model/destination";
import type { Warehouse } from "../../ports/warehouse";

/** What asking the warehouse about a recorded copy needs. */
export interface HeldCopyDeps {
  readonly warehouse: () => Promise<Warehouse>;
  /** How recorded destination names resolve (the default dataset), as when the day was copied. */
  readonly destinations: DestinationRules;
}

/**
 * The warehouse's figures of the day a copy record says it copied to, by
 * `filterColumn` and `keyColumn`; an Error when the recorded destination
 * cannot be used (another default dataset, a project no longer allowed).
 */
export async function warehouseFigures(
  deps: HeldCopyDeps,
  record: CopiedDayRecord,
  filterColumn: string,
  day: CalendarDay,
  keyColumn: string | undefined,
): Promise<DayFigures | Error> {
  const destination = recordedDestination(deps, record.destination);
  if (destination instanceof Error) return destination;
  const warehouse = await deps.warehouse();
  return warehouse.dayFigures({ destination, filterColumn, day }, keyColumn);
}

/**
 * warehouseFigures of several days recorded as copied to one `destination`
 * (as the records write it), in one query: each day's figures, or for every
 * day the same Error when that destination cannot be used.
 */
export async function warehouseDaysFigures(
  deps: HeldCopyDeps,
  destinationText: string,
  at: { readonly filterColumn: string; readonly days: readonly CalendarDay[] },
  keyColumn: string | undefined,
): Promise<ReadonlyMap<CalendarDay, DayFigures | Error>> {
  const destination = recordedDestination(deps, destinationText);
  if (destination instanceof Error) return new Map(at.days.map((day) => [day, destination]));
  const warehouse = await deps.warehouse();
  return warehouse.daysFigures({ destination, ...at }, keyColumn);
}

/** A destination as a copy record writes it, resolved by today's rules; an Error when they no longer allow it. */
function recordedDestination(deps: HeldCopyDeps, text: string): Destination | Error {
  try {
    return parseDestination(text, deps.destinations);
  } catch (error) {
    return new Error(`the recorded destination cannot be used: ${(error as Error).message}`);
  }
}

/** Whether the warehouse still holds exactly the copy the record describes (rows, and key figures when recorded). */
export async function warehouseHoldsCopy(deps: HeldCopyDeps, copy: CopiedDayRecord): Promise<boolean> {
  const held = await warehouseFigures(deps, copy, copy.filterColumn, copy.day, copy.figures.key?.column);
  return !(held instanceof Error) && sameFigures(held, copy.figures);
}
