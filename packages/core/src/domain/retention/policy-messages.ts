import type { RetentionPolicy } from "./retention-policy";

/** The two runs a policy schedules. */
export type PolicyMode = "migration" | "cleanup";

/**
 * The ordinary migration message a policy's schedule publishes, naming its
 * policy: the same message an operator could publish by hand.
 */
export function policyMigrationMessage(policy: RetentionPolicy): Record<string, unknown> {
  return {
    policy: policy.source_table,
    years_to_migrate: policy.years_to_migrate,
    months_to_migrate: policy.months_to_migrate,
    source_tables: [policy.source_table],
    destination_tables: [policy.destination_table],
    filter_columns: [policy.filter_column],
    tasks_enqueued_limit: policy.tasks_enqueued_limit,
    ...(policy.min_date_limit_iso ? { min_date_limit_iso: policy.min_date_limit_iso } : {}),
    ...(policy.max_rows_per_second ? { max_rows_per_second: policy.max_rows_per_second } : {}),
  };
}

/**
 * The ordinary cleanup message a policy's schedule publishes, naming its
 * policy; a dry run unless the policy says `cleanup: delete`. Undefined for a
 * policy whose cleanup is `off`.
 */
export function policyCleanupMessage(policy: RetentionPolicy): Record<string, unknown> | undefined {
  if (policy.cleanup === "off") return undefined;
  return {
    policy: policy.source_table,
    clean_table: policy.source_table,
    filter_column: policy.filter_column,
    dry_run: policy.cleanup !== "delete",
    time_zone: policy.time_zone,
    ...(policy.cleanup_window ? { cleanup_window: policy.cleanup_window } : {}),
    ...(policy.max_rows_per_second ? { max_rows_per_second: policy.max_rows_per_second } : {}),
    ...(policy.min_retention_days !== undefined ? { min_retention_days: policy.min_retention_days } : {}),
  };
}

/** Each schedule a policy declares: its mode, cron, time zone and message. */
export function policySchedules(policy: RetentionPolicy): {
  readonly mode: PolicyMode;
  readonly cron: string;
  readonly timeZone: string;
  readonly message: Record<string, unknown>;
}[] {
  const cleanup = policyCleanupMessage(policy);
  return [
    {
      mode: "migration" as const,
      cron: policy.migrate_schedule,
      timeZone: policy.time_zone,
      message: policyMigrationMessage(policy),
    },
    ...(cleanup && policy.cleanup_schedule
      ? [
          {
            mode: "cleanup" as const,
            cron: policy.cleanup_schedule,
            timeZone: policy.time_zone,
            message: cleanup,
          },
        ]
      : []),
  ];
}
