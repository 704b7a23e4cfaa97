import { describe, expect, it } from "vitest";
import { ConfigError } from "../../errors";
import { mysqlTlsOptions } from "./mysql-tls-options";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
const noFiles = (path: string): string => {
  throw new Error(`ENOENT: ${path}`);
};

describe("mysqlTlsOptions", () => {
  it("adds nothing when neither variable asks for TLS", () => {
    expect(mysqlTlsOptions({ rejectUnauthorized: true }, noFiles)).toEqual({});
  });

  it("verifies the server against a CA given as PEM text", () => {
    expect(mysqlTlsOptions({ ca: PEM, rejectUnauthorized: true }, noFiles)).toEqual({
      ssl: { ca: PEM, rejectUnauthorized: true },
    });
  });

  it("repairs PEM text whose line breaks arrived as \\n", () => {
    const flattened = PEM.replaceAll("\n", "\\n");
    expect(mysqlTlsOptions({ ca: flattened, rejectUnauthorized: true }, noFiles).ssl).toEqual({
      ca: PEM,
      rejectUnauthorized: true,
    });
  });

  it("reads a CA file by path", () => {
    const files = (path: string) => (path === "/secrets/server-ca.pem" ? PEM : noFiles(path));
    expect(mysqlTlsOptions({ ca: "/secrets/server-ca.pem", rejectUnauthorized: false }, files)).toEqual({
      ssl: { ca: PEM, rejectUnauthorized: false },
    });
  });

  it("encrypts without verifying when only MYSQL_TLS_REJECT_UNAUTHORIZED=false is set", () => {
    expect(mysqlTlsOptions({ rejectUnauthorized: false }, noFiles)).toEqual({
      ssl: { rejectUnauthorized: false },
    });
  });

  it("names the variable when the CA file cannot be read or is not PEM", () => {
    expect(() => mysqlTlsOptions({ ca: "/nope.pem", rejectUnauthorized: true }, noFiles)).toThrow(
      ConfigError,
    );
    expect(() => mysqlTlsOptions({ ca: "/x.txt", rejectUnauthorized: true }, () => "hello")).toThrow(
      /MYSQL_TLS_CA: cannot read a PEM certificate from \/x\.txt \(not a PEM file\)/,
    );
  });
});
