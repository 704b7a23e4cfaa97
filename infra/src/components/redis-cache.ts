import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface RedisCacheArgs {
  /** Region of the instance (the functions' region). */
  readonly region: string;
  /** Project of the instance. */
  readonly project: string;
  /** The VPC network (name or self link) that also reaches MySQL. */
  readonly network: string;
  /** BASIC (one node) or STANDARD_HA (replicated, automatic failover). */
  readonly tier: "BASIC" | "STANDARD_HA";
  /** Memory in GiB; the `mig_*` sets are small, a day is ten bytes. */
  readonly memorySizeGb: number;
  /**
   * Whether the provider refuses to delete the instance. It holds bookkeeping the warehouse's durable
   * record can rebuild (rebuildSet), and a protected instance also blocks its replacement (a tier change).
   */
  readonly deletionProtection: boolean;
}

/** The Redis version the instance runs. */
const REDIS_VERSION = "REDIS_7_2";

/**
 * Memorystore for Redis holding the `mig_<table>` sets and the queue
 * bookkeeping: AUTH on, TLS in transit with server authentication, reachable
 * only from the private network.
 */
export class RedisCache extends pulumi.ComponentResource {
  readonly instance: gcp.redis.Instance;
  /** `rediss://host:port`, the value of REDIS_URL. */
  readonly url: pulumi.Output<string>;
  /** Every CA certificate the server may present (more than one while Google rotates them). */
  readonly caCertificates: pulumi.Output<string>;
  /** The AUTH string Memorystore generates; a secret. */
  readonly authString: pulumi.Output<string>;

  constructor(name: string, args: RedisCacheArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:RedisCache", name, {}, opts);
    const parent = { parent: this };

    this.instance = createInstance();
    this.url = pulumi.interpolate`rediss://${this.instance.host}:${this.instance.port}`;
    this.caCertificates = this.instance.serverCaCerts.apply((certs) =>
      certs.map((c) => c.cert.trim()).join("\n"),
    );
    this.authString = pulumi.secret(this.instance.authString);
    this.registerOutputs({ url: this.url });

    function createInstance() {
      return new gcp.redis.Instance(
        `${name}-instance`,
        {
          name: "archiver-redis",
          project: args.project,
          region: args.region,
          tier: args.tier,
          memorySizeGb: args.memorySizeGb,
          redisVersion: REDIS_VERSION,
          authorizedNetwork: fullNetworkName(args.project, args.network),
          connectMode: "DIRECT_PEERING",
          authEnabled: true,
          transitEncryptionMode: "SERVER_AUTHENTICATION",
          // Set either way: left unset, the provider treats the instance as protected.
          deletionProtection: args.deletionProtection,
        },
        parent,
      );
    }
  }
}

function fullNetworkName(project: string, network: string): string {
  return network.includes("/") ? network : `projects/${project}/global/networks/${network}`;
}
