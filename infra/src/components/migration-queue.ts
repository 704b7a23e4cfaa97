import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { QUEUE_NAME } from "@table-archiver/core/ports";
import type { QueueSettings } from "../config/stack-config";

export interface MigrationQueueArgs {
  /** Region of the queue; the entry function creates tasks here. */
  readonly location: string;
  /** Project of the queue. */
  readonly project: string;
  /**
   * Rate limits and retry policy. Every field has a default in the stack config
   * (docs/deploy.md): 1 dispatch per second, 2 at a time, 5 attempts, backoff 10s–600s.
   */
  readonly settings: QueueSettings;
}

/**
 * The Cloud Tasks queue `jobs-migration`: one task per day. Its rate limits are
 * the operator's control over the load on the source database; its retry
 * policy decides how long a failing day keeps being retried.
 */
export class MigrationQueue extends pulumi.ComponentResource {
  readonly queue: gcp.cloudtasks.Queue;
  /** `projects/P/locations/L/queues/jobs-migration`, what `gcloud tasks` and the driver use. */
  readonly path: pulumi.Output<string>;

  constructor(name: string, args: MigrationQueueArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:MigrationQueue", name, {}, opts);
    const { settings } = args;
    const parent = { parent: this };

    this.queue = createQueue();
    this.path = pulumi.interpolate`projects/${this.queue.project}/locations/${this.queue.location}/queues/${this.queue.name}`;
    this.registerOutputs({ path: this.path });

    function createQueue() {
      return new gcp.cloudtasks.Queue(
        `${name}-queue`,
        {
          name: QUEUE_NAME,
          project: args.project,
          location: args.location,
          rateLimits: {
            maxDispatchesPerSecond: settings.maxDispatchesPerSecond,
            maxConcurrentDispatches: settings.maxConcurrentDispatches,
          },
          retryConfig: {
            maxAttempts: settings.maxAttempts,
            minBackoff: settings.minBackoff,
            maxBackoff: settings.maxBackoff,
            maxDoublings: settings.maxDoublings,
          },
          stackdriverLoggingConfig: { samplingRatio: 1 },
        },
        parent,
      );
    }
  }
}
