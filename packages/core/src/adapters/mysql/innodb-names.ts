// InnoDB's dictionary names a table `database/table`, each part in the server's
// filename encoding: letters, digits and `_` as they are, any other character
// as `@` and four hex digits of its code (`my-table` is `my@002dtable`). Some
// letters beyond ASCII have shorter codes of their own; names with those are
// refused rather than guessed, so no foreign key goes unseen by a wrong match.

const PLAIN = /^[0-9A-Za-z_]$/;

/** The dictionary's name of `database`.`table`, or undefined for a name this module cannot encode. */
export function dictionaryName(database: string, table: string, lowerCase: boolean): string | undefined {
  const parts = [database, table].map((part) => encodePart(lowerCase ? part.toLowerCase() : part));
  return parts.every((part) => part !== undefined) ? parts.join("/") : undefined;
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

/** A foreign key's dictionary id (`db/constraint`): the database is encoded, the constraint's name is not. */
export function fromDictionaryId(id: string): { readonly database: string; readonly name: string } {
  const [database, constraint] = split(id);
  return { database: decodePart(database), name: constraint };
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
