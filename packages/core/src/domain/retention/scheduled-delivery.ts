import type { Logger } from "../../ports/logger";
import type { ScheduledDeliveries } from "../../ports/scheduled-deliveries";
import type { PolicyMode } from "./policy-messages";

/** How long a scheduled run's delivery is remembered: longer than any redelivery of it. */
const REMEMBER_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Whether a message is a second delivery of a scheduled run: same policy,
 * same mode, published within the same scheduled minute. Such a delivery does
 * nothing (the first did it all); a message without a policy (published by
 * hand) is never one.
 */
export async function isRepeatedDelivery(
  deps: { readonly deliveries: ScheduledDeliveries; readonly logger: Logger },
  run: { readonly policy: string | undefined; readonly mode: PolicyMode; readonly publishedAt: Date },
): Promise<boolean> {
  if (run.policy === undefined) return false;
  const minute = new Date(Math.floor(run.publishedAt.getTime() / 60_000) * 60_000).toISOString();
  if (await deps.deliveries.first(`${run.policy}:${run.mode}:${minute}`, REMEMBER_MS)) return false;
  deps.logger.info("scheduled run delivered again; nothing done", {
    policy: run.policy,
    mode: run.mode,
    minute,
  });
  return true;
}
