/** A MySQL table or column name this tool accepts: 1-64 letters, digits, `_` or `$`. */
export const IDENTIFIER = /^[A-Za-z0-9_$]{1,64}$/;

export function isIdentifier(value: string): boolean {
  return IDENTIFIER.test(value) && !/^\d+$/.test(value);
}
