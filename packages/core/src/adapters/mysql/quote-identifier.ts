/**
 * Quotes a MySQL identifier with backticks, doubling any backtick inside, so
 * a name can never end the quoted identifier early. Every table and column
 * name this adapter writes into SQL goes through here.
 */
export function quoteIdentifier(name: string): string {
  if (name.length === 0 || name.includes("\0")) {
    throw new Error(`not a usable MySQL identifier: ${JSON.stringify(name)}`);
  }
  return `\`${name.replaceAll("`", "``")}\``;
}
