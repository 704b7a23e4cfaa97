/** Every page of a listing (Warehouse.dayKeys), read to its end, for tests to compare whole. */
export async function pagesOf(pages: AsyncIterable<readonly string[]>): Promise<string[][]> {
  const read: string[][] = [];
  for await (const page of pages) read.push([...page]);
  return read;
}
