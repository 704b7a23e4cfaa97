import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface WarehouseArgs {
  readonly project: string;
  /** Dataset for destinations given without one (WAREHOUSE_DATASET). @default "archive" */
  readonly datasetId?: string;
  /** BigQuery location, a region or a multi-region such as EU. */
  readonly location: string;
}

/**
 * The BigQuery dataset the archived days land in. It is never deleted with its
 * tables by `pulumi destroy`: after cleanup it holds the only copy of the rows.
 */
export class Warehouse extends pulumi.ComponentResource {
  readonly dataset: gcp.bigquery.Dataset;

  constructor(name: string, args: WarehouseArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:Warehouse", name, {}, opts);
    this.dataset = new gcp.bigquery.Dataset(
      `${name}-dataset`,
      {
        project: args.project,
        datasetId: args.datasetId ?? "archive",
        location: args.location,
        description: "Rows archived from MySQL by table-archiver, one day per partition.",
        deleteContentsOnDestroy: false,
      },
      { parent: this, protect: true },
    );
    this.registerOutputs({ dataset: this.dataset.datasetId });
  }
}
