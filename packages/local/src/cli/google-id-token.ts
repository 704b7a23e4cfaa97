import { GoogleAuth } from "google-auth-library";

/**
 * A Google identity token for `audience`, from google-auth-library's ID token
 * client (a service account key, the metadata server, ...).
 *
 * A module of its own that imports the library statically, loaded with
 * `import("./google-id-token")` only when a token is needed: the library is
 * CommonJS, and a dynamic `import("google-auth-library")` in the code-split
 * bundle resolves to `{ default: module.exports }` alone (esbuild
 * evanw/esbuild#3245), so `GoogleAuth` came out undefined. A static named
 * import goes through esbuild's CommonJS interop and keeps it.
 */
export async function googleIdToken(audience: string): Promise<string> {
  const client = await new GoogleAuth().getIdTokenClient(audience);
  return client.idTokenProvider.fetchIdToken(audience);
}
