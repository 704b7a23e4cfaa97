// InnoDB's dictionary names a table `database/table`, each part in the server's
// filename encoding: letters, digits and `_` as they are, any other character
// as `@` and four hex digits of its code (`my-table` is `my@002dtable`). Some
// letters beyond ASCII have shorter codes of their own; names with those are
// refused rather than guessed, so no foreign key goes unseen by a wrong match.
// A name is also matched as written, in case a server lists it unencoded.

const PLAIN = /^[0-9A-Za-z_]$/;

/**
 * The names `database`.`table` may have in the dictionary: encoded, and as
 * written when that differs; undefined for a name this module cannot encode.
 */
export function dictionaryNames(database: string, table: string, lowerCase: boolean): string[] | undefined {
  const [db, name] = [database, table].map((part) => (lowerCase ? part.toLowerCase() : part)) as [
    string,
    string,
  ];
  const encoded = [db, name].map(encodePart);
  if (encoded.some((part) => part === undefined)) return undefined;
  return [...new Set([encoded.join("/"), `${db}/${name}`])];
}

function encodePart(part: string): string | undefined {
  let encoded = "";
  for (const char of part) {
    const code = char.codePointAt(0) ?? 0;
    if (PLAIN.test(char)) encoded += char;
    else if (code < 0x80) encoded += `@${code.toString(16).padStart(4, "0")}`;
    else return undefined;
  }
  return encoded;
}

/** A table's dictionary name (`db/table`), decoded; throws on an encoding it does not know. */
export function fromDictionaryName(name: string): { readonly database: string; readonly name: string } {
  const [database, table] = split(name);
  return { database: decodePart(database), name: decodePart(table) };
}

/**
 * The constraint name in a foreign key's dictionary id: `db/constraint` (the
 * database encoded, the constraint not), or, from MariaDB 12.1 on, where
 * constraint names are unique per table only, the bare constraint name.
 * `childName` is the key's FOR_NAME, whose database part tells the two apart.
 */
export function constraintOfId(id: string, childName: string): string {
  const [database] = split(childName);
  return id.startsWith(`${database}/`) ? id.slice(database.length + 1) : id;
}

function split(name: string): [string, string] {
  const slash = name.indexOf("/");
  if (slash < 0) throw new Error(`not a dictionary name: ${name}`);
  return [name.slice(0, slash), name.slice(slash + 1)];
}

function decodePart(part: string): string {
  return part.replace(/@(.{0,4})/g, (whole, hex: string) => {
    if (!/^[0-9a-f]{4}$/.test(hex)) throw new Error(`unknown name encoding ${whole} in ${part}`);
    return String.fromCodePoint(Number.parseInt(hex, 16));
  });
}
