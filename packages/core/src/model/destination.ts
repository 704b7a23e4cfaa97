import { InvalidInputError } from "../errors";

/** Where a destination table lives in the warehouse. */
export interface Destination {
  readonly project?: string;
  readonly dataset: string;
  readonly table: string;
}

/** How destination names resolve: the dataset a bare table name goes to, and whether a name may carry a project. */
export interface DestinationRules {
  readonly defaultDataset: string;
  readonly allowProject: boolean;
}

const PART = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const PROJECT = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/**
 * `t` goes to the default dataset, `d.t` to dataset `d`, `p.d.t` to project
 * `p` (only where the warehouse has projects).
 */
export function parseDestination(name: string, rules: DestinationRules, field = "destination"): Destination {
  const parts = name.split(".");
  const bad = (why: string) => new InvalidInputError(field, `"${name}" ${why}`);
  if (parts.length > 3 || (parts.length === 3 && !rules.allowProject)) {
    throw bad(
      rules.allowProject
        ? "has too many parts (at most project.dataset.table)"
        : "has too many parts (at most dataset.table)",
    );
  }
  const table = parts.at(-1) ?? "";
  const dataset = parts.length >= 2 ? (parts.at(-2) ?? "") : rules.defaultDataset;
  if (!PART.test(table))
    throw bad("is not a valid table name (letters, digits, _; not starting with a digit)");
  if (!PART.test(dataset))
    throw bad("is not a valid dataset name (letters, digits, _; not starting with a digit)");
  if (parts.length === 3) {
    const project = parts[0] ?? "";
    if (!PROJECT.test(project)) throw bad("is not a valid Google Cloud project id");
    return { project, dataset, table };
  }
  return { dataset, table };
}

export function formatDestination(d: Destination): string {
  return [d.project, d.dataset, d.table].filter(Boolean).join(".");
}
