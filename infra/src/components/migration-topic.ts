import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface MigrationTopicArgs {
  /** Project of the topics. */
  readonly project: string;
}

/** Name of the topic operators publish migration and cleanup messages to. */
const TOPIC_NAME = "archiver-messages";

/**
 * How long the dead-letter subscription keeps a failed message for an operator to inspect:
 * 7 days, the Pub/Sub maximum.
 */
const DEAD_LETTER_RETENTION = "604800s";

/**
 * The Pub/Sub topic that carries migration and cleanup messages, and the
 * dead-letter topic for messages the entry function keeps failing on. The
 * dead-letter topic has its own pull subscription because Pub/Sub drops what is
 * published to a topic nobody subscribes to.
 */
export class MigrationTopic extends pulumi.ComponentResource {
  readonly topic: gcp.pubsub.Topic;
  readonly deadLetterTopic: gcp.pubsub.Topic;
  readonly deadLetterSubscription: gcp.pubsub.Subscription;

  constructor(name: string, args: MigrationTopicArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:MigrationTopic", name, {}, opts);
    const { project } = args;
    this.topic = new gcp.pubsub.Topic(`${name}-topic`, { project, name: TOPIC_NAME }, { parent: this });
    const deadLetter = `${TOPIC_NAME}-dead-letter`;
    this.deadLetterTopic = new gcp.pubsub.Topic(
      `${name}-dead-letter`,
      { project, name: deadLetter },
      { parent: this },
    );
    this.deadLetterSubscription = new gcp.pubsub.Subscription(
      `${name}-dead-letter`,
      {
        project,
        name: deadLetter,
        topic: this.deadLetterTopic.id,
        messageRetentionDuration: DEAD_LETTER_RETENTION,
        retainAckedMessages: false,
        expirationPolicy: { ttl: "" },
      },
      { parent: this },
    );
    this.registerOutputs({ topic: this.topic.name, deadLetterTopic: this.deadLetterTopic.name });
  }
}
