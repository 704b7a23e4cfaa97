import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface VpcAccessArgs {
  readonly project: string;
  readonly region: string;
  /** The VPC network (name or self link) that reaches MySQL and Memorystore. */
  readonly network: string;
  /** Direct VPC egress: the subnet in `region` the function instances take addresses from. */
  readonly subnetwork: string;
  /** `direct` (Direct VPC egress) or `connector` (a Serverless VPC Access connector). */
  readonly egress: "direct" | "connector";
  /** The connector's unused /28 in `network`. */
  readonly connectorRange: string;
}

/** The serviceConfig fields that put a function on the network. */
export type VpcServiceConfig =
  | {
      readonly directVpcNetworkInterfaces: { network: string; subnetwork: string }[];
      readonly directVpcEgress: "VPC_EGRESS_PRIVATE_RANGES_ONLY";
    }
  | {
      readonly vpcConnector: pulumi.Output<string>;
      readonly vpcConnectorEgressSettings: "PRIVATE_RANGES_ONLY";
    };

/**
 * How the functions reach the private network (MySQL, Memorystore). Direct
 * VPC egress by default: each instance takes an address in the subnet, it
 * scales with the instances, and there is nothing to size or pay for when
 * idle. Some projects are refused it by the Cloud Functions API (the feature
 * is not enabled for them); there the documented fallback is a Serverless VPC
 * Access connector, a small set of VMs the program creates. Either way only
 * private ranges go through the VPC, so BigQuery, Cloud Tasks and Secret
 * Manager keep their direct path.
 */
export class VpcAccess extends pulumi.ComponentResource {
  readonly serviceConfig: VpcServiceConfig;
  readonly connector: gcp.vpcaccess.Connector | undefined;

  constructor(name: string, args: VpcAccessArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:VpcAccess", name, {}, opts);
    if (args.egress === "direct") {
      this.connector = undefined;
      this.serviceConfig = {
        directVpcNetworkInterfaces: [{ network: args.network, subnetwork: args.subnetwork }],
        directVpcEgress: "VPC_EGRESS_PRIVATE_RANGES_ONLY",
      };
    } else {
      this.connector = new gcp.vpcaccess.Connector(
        `${name}-connector`,
        {
          project: args.project,
          region: args.region,
          name: "archiver-connector",
          network: args.network,
          ipCidrRange: args.connectorRange,
          // The smallest connector: the functions' traffic to MySQL and Redis is light.
          machineType: "e2-micro",
          minInstances: 2,
          maxInstances: 3,
        },
        { parent: this },
      );
      this.serviceConfig = {
        vpcConnector: this.connector.id,
        vpcConnectorEgressSettings: "PRIVATE_RANGES_ONLY",
      };
    }
    this.registerOutputs({});
  }
}
