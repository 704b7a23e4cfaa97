import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface EntryTriggerArgs {
  /** The topic operators publish to. */
  readonly topic: gcp.pubsub.Topic;
  /** Where a message goes after `maxDeliveryAttempts` failed deliveries. */
  readonly deadLetterTopic: gcp.pubsub.Topic;
  /** The entry function. */
  readonly entry: gcp.cloudfunctionsv2.Function;
  /** The identity Pub/Sub signs its pushes as; it may invoke the entry function and nothing else. */
  readonly pushAccount: gcp.serviceaccount.Account;
  /** Deliveries before dead-lettering (Pub/Sub allows 5–100). */
  readonly maxDeliveryAttempts: number;
}

/** First retry delay after a failed delivery. */
const MINIMUM_BACKOFF = "10s";
/** Longest retry delay. */
const MAXIMUM_BACKOFF = "600s";

/**
 * The entry function's Pub/Sub trigger: a push subscription on the topic that
 * delivers every message to the entry function and retries it with
 * exponential backoff while the function fails (a 5xx, or no answer within the
 * ack deadline), then moves it to the dead-letter topic.
 *
 * Why a subscription of our own rather than the function's Eventarc
 * `eventTrigger`: Eventarc creates and owns its subscription and offers no
 * dead-letter setting, so a message the entry function keeps failing on would
 * be retried for the topic's whole retention. The Functions Framework turns
 * the push body into the same `google.cloud.pubsub.topic.v1.messagePublished`
 * CloudEvent Eventarc delivers (the bundle test proves it), so the function
 * code is the same either way.
 */
export class EntryTrigger extends pulumi.ComponentResource {
  readonly subscription: gcp.pubsub.Subscription;

  constructor(name: string, args: EntryTriggerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:EntryTrigger", name, {}, opts);
    const serviceUri = args.entry.serviceConfig.apply((config) => config?.uri ?? "");

    this.subscription = new gcp.pubsub.Subscription(
      `${name}-push`,
      {
        project: args.topic.project,
        name: pulumi.interpolate`${args.topic.name}-entry`,
        topic: args.topic.id,
        // Longer than the entry function's 540 s timeout, so a slow run is not redelivered while it runs.
        ackDeadlineSeconds: 600,
        pushConfig: {
          // The Functions Framework reads the topic from this path when it builds the CloudEvent.
          pushEndpoint: pulumi.interpolate`${serviceUri}/${args.topic.id}`,
          oidcToken: { serviceAccountEmail: args.pushAccount.email, audience: serviceUri },
        },
        retryPolicy: {
          minimumBackoff: MINIMUM_BACKOFF,
          maximumBackoff: MAXIMUM_BACKOFF,
        },
        deadLetterPolicy: {
          deadLetterTopic: args.deadLetterTopic.id,
          maxDeliveryAttempts: args.maxDeliveryAttempts,
        },
        expirationPolicy: { ttl: "" },
      },
      { parent: this },
    );
    this.registerOutputs({ subscription: this.subscription.name });
  }
}
