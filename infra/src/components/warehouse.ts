import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface WarehouseArgs {
  readonly project: string;
  /** Dataset for destinations given without one (WAREHOUSE_DATASET). */
  readonly datasetId: string;
  /** BigQuery location, a region or a multi-region such as EU. */
  readonly location: string;
  /** Further datasets of this project that destinations may name (`dataset.table`). */
  readonly extraDatasetIds: readonly string[];
}

/**
 * The BigQuery datasets the archived days land in: the default one and any
 * extra ones destinations name. The functions' accounts are granted on
 * datasets, not on the project, so they cannot create a dataset themselves:
 * the program creates each. None is deleted with its tables by `pulumi
 * destroy`: after cleanup it holds the only copy of the rows.
 */
export class Warehouse extends pulumi.ComponentResource {
  readonly dataset: gcp.bigquery.Dataset;
  /** The extra datasets, by id. */
  readonly extraDatasets: ReadonlyMap<string, gcp.bigquery.Dataset>;

  constructor(name: string, args: WarehouseArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:Warehouse", name, {}, opts);
    const createDataset = (resourceName: string, datasetId: string) =>
      new gcp.bigquery.Dataset(
        resourceName,
        {
          project: args.project,
          datasetId,
          location: args.location,
          description: "Rows archived from MySQL by table-archiver, one day per partition.",
          deleteContentsOnDestroy: false,
        },
        { parent: this, protect: true },
      );
    this.dataset = createDataset(`${name}-dataset`, args.datasetId);
    this.extraDatasets = new Map(
      args.extraDatasetIds.map((id) => [id, createDataset(`${name}-dataset-${id}`, id)]),
    );
    this.registerOutputs({ dataset: this.dataset.datasetId });
  }
}
