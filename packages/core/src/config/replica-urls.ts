/**
 * What is wrong with the entries of CLEANUP_REPLICA_URLS, if anything. A
 * replica URL carries its password, and a ConfigError reaches logs and HTTP
 * answers, so an entry is named by its position, never by its text: not even
 * a piece of it, since a password holding a comma arrives cut in two (the
 * value is split on commas, see docs/configuration.md).
 */
export function replicaUrlProblems(urls: readonly string[]): string[] {
  const bad = urls.flatMap((url, index) => (isMysqlUrl(url) ? [] : [index + 1]));
  if (bad.length === 0) return [];
  const which = bad.length === 1 ? `entry ${bad[0]}` : `entries ${listed(bad)}`;
  const shape =
    bad.length === 1
      ? "is not a mysql://[user[:password]@]host[:port] URL"
      : "are not mysql://[user[:password]@]host[:port] URLs";
  return [
    `CLEANUP_REPLICA_URLS: ${which} of ${urls.length} ${shape} ` +
      "(the value is split on commas; percent-encode , / @ : ? # % and spaces in a user or password)",
  ];
}

/** Two numbers or more as words: `1, 2 and 3`. */
function listed(numbers: readonly number[]): string {
  return `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
}

function isMysqlUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "mysql:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}
