import { once } from "node:events";
import type { Writable } from "node:stream";
import type { JobLoadMetadata } from "@google-cloud/bigquery";
import type { Row } from "../../model/table-schema";
import type { BigQueryLoadJob, BigQueryTableHandle } from "./bigquery-client";

/**
 * Streams `batches`, encoded, into a load job on `table` and waits until the
 * job is DONE. Holds at most one encoded batch plus the stream buffers: each
 * write waits for `drain` when the upload falls behind. Returns undefined
 * when there was no row at all (no job is started then).
 *
 * On any failure before the last batch the upload is destroyed, never ended:
 * the multipart body then lacks its closing boundary, so BigQuery never
 * creates the job and the partition keeps what it had. (The client library
 * offers no way to abort that request; it stays open until BigQuery drops it.)
 */
export async function streamLoad(
  table: Pick<BigQueryTableHandle, "createWriteStream">,
  metadata: JobLoadMetadata,
  batches: AsyncIterable<readonly Row[]>,
  encode: (rows: readonly Row[]) => string,
): Promise<BigQueryLoadJob | undefined> {
  let upload: Writable | undefined;
  let done: Promise<BigQueryLoadJob> | undefined;
  try {
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      const chunk = encode(batch);
      if (!upload) {
        upload = table.createWriteStream(metadata);
        done = jobDone(upload);
      }
      if (!upload.write(chunk)) await Promise.race([once(upload, "drain"), done]);
    }
  } catch (error) {
    upload?.destroy();
    throw error;
  }
  if (!upload || !done) return undefined;
  upload.end();
  return done;
}

/** Settles when the upload's job is DONE (`complete`) or anything failed (`error`). */
function jobDone(upload: Writable): Promise<BigQueryLoadJob> {
  const done = new Promise<BigQueryLoadJob>((resolve, reject) => {
    upload.once("complete", resolve);
    upload.once("error", reject);
  });
  // Awaited later; until then a failure must not count as unhandled.
  done.catch(() => {});
  return done;
}
