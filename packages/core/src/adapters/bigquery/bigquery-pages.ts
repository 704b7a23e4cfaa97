import type { BigQueryNextPage, BigQueryPaging } from "./bigquery-client";

/** What `query` and `getQueryResults` answer when paging: a page of rows, then the next page's `nextQuery`. */
type PageAnswer = readonly [unknown[], ...unknown[]];

/**
 * The pages of a query read with paging (BigQueryClient.query's `paging`),
 * from its first answer on, each page asked for only when the iteration
 * reaches it: one page of rows at a time, whatever the result's size.
 * A `nextQuery` that is not null yet names no job is not a last page, so it
 * is an error rather than an end: ending there would drop rows unseen.
 */
export async function* queryPages(
  first: () => Promise<PageAnswer>,
  paging: BigQueryPaging,
): AsyncGenerator<unknown[]> {
  let [rows, next] = await first();
  for (;;) {
    if (rows.length > 0) yield rows;
    if (next === null || next === undefined) return;
    const page = nextPageOf(next);
    // maxResults again: without it the library would fetch every remaining page at once.
    [rows, next] = await page.job.getQueryResults({ ...page, maxResults: paging.maxResults });
  }
}

function nextPageOf(value: unknown): BigQueryNextPage {
  const job = (value as { job?: { getQueryResults?: unknown } } | undefined)?.job;
  if (typeof value !== "object" || typeof job?.getQueryResults !== "function") {
    throw new Error("BigQuery answered a page of a query without the job to read the next one from");
  }
  return value as BigQueryNextPage;
}
