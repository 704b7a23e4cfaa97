import { VerificationError } from "../../errors";
import type { ChunkOutcome } from "../../ports/day-deleter";
import { describeReference } from "./judge-references";

/**
 * The refusal for a chunk outcome that stops its day (`changed`,
 * `referenced`, `side-effects-added`), or undefined for one that does not.
 * `where` names the day and the chunk, `before` what became of the day so
 * far, and `changed` how the rows differ from what was expected.
 */
export function chunkRefusal(
  outcome: ChunkOutcome,
  where: string,
  before: string,
  changed: () => string,
): VerificationError | undefined {
  if (outcome.kind === "changed") {
    return new VerificationError(`${where}: ${changed()}; ${before}`, { reason: "changed" });
  }
  if (outcome.kind === "referenced") {
    return new VerificationError(
      `${where}: ${outcome.references.map(describeReference).join("; ")}; ${before}. ` +
        "Archive and clean the referencing table first",
      { reason: "foreign-key" },
    );
  }
  if (outcome.kind === "side-effects-added") {
    const { referencingKeys, deleteTriggers } = outcome.added;
    const what = [
      ...referencingKeys.map(
        (key) => `foreign key ${key.constraint} of ${key.childTable} (ON DELETE ${key.onDelete})`,
      ),
      ...deleteTriggers.map((name) => `DELETE trigger ${name}`),
    ].join(", ");
    return new VerificationError(
      `${where}: ${what} appeared on the table during its cleanup; ${before}. Run the cleanup again to check the day against it`,
      { reason: referencingKeys.length > 0 ? "foreign-key" : "trigger" },
    );
  }
  return undefined;
}
