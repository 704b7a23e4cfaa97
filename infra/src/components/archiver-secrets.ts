import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { SecretEnvName } from "../config/function-env";

export interface ArchiverSecretsArgs {
  readonly project: string;
  /** The MySQL password (a Pulumi secret); absent when the source uses Cloud SQL IAM authentication. */
  readonly mysqlPassword?: pulumi.Output<string> | undefined;
  /** Memorystore's AUTH string. */
  readonly redisAuth: pulumi.Output<string>;
  /** CLEANUP_REPLICA_URLS (a Pulumi secret): replica URLs may carry passwords. */
  readonly cleanupReplicaUrls?: pulumi.Output<string> | undefined;
}

/** A Secret Manager secret and the version the functions read, with the variable it becomes. */
export interface SecretRef {
  readonly envName: SecretEnvName;
  readonly secret: gcp.secretmanager.Secret;
  readonly version: gcp.secretmanager.SecretVersion;
}

/**
 * Secret Manager secrets for the MySQL password, the Redis AUTH string and
 * the replica URLs cleanup measures lag on.
 * Functions get them as secret environment variables pinned to a version
 * number, so rotating a value (a new version) redeploys the functions that use
 * it; they never appear in plain function configuration.
 */
export class ArchiverSecrets extends pulumi.ComponentResource {
  readonly mysqlPassword: SecretRef | undefined;
  readonly redisAuth: SecretRef;
  readonly cleanupReplicaUrls: SecretRef | undefined;

  constructor(name: string, args: ArchiverSecretsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverSecrets", name, {}, opts);
    const parent = { parent: this };

    this.mysqlPassword = args.mysqlPassword
      ? createSecret("mysql-password", "MYSQL_PASSWORD", args.mysqlPassword)
      : undefined;
    this.redisAuth = createSecret("redis-auth", "REDIS_AUTH", args.redisAuth);
    this.cleanupReplicaUrls = args.cleanupReplicaUrls
      ? createSecret("cleanup-replica-urls", "CLEANUP_REPLICA_URLS", args.cleanupReplicaUrls)
      : undefined;
    this.registerOutputs({});

    function createSecret(id: string, envName: SecretEnvName, value: pulumi.Output<string>): SecretRef {
      const secret = new gcp.secretmanager.Secret(
        `${name}-${id}`,
        { project: args.project, secretId: `archiver-${id}`, replication: { auto: {} } },
        parent,
      );
      const version = new gcp.secretmanager.SecretVersion(
        `${name}-${id}`,
        { secret: secret.id, secretData: pulumi.secret(value) },
        parent,
      );
      return { envName, secret, version };
    }
  }
}
