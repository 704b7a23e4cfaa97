import { describe, expect, it } from "vitest";
import { grantStatement, isAccessDenied, replicaMonitorPrivilege } from "./privilege-refusal";
import { onDeleteRule } from "./side-effect-queries";

describe("what each server asks for", () => {
  it("reads replica status with SLAVE MONITOR on MariaDB 10.5.9 and later, REPLICATION CLIENT elsewhere", () => {
    expect(replicaMonitorPrivilege("10.11.19-MariaDB-0+deb12u1")).toBe("SLAVE MONITOR");
    expect(replicaMonitorPrivilege("11.4.2-MariaDB")).toBe("SLAVE MONITOR");
    expect(replicaMonitorPrivilege("10.5.8-MariaDB")).toBe("REPLICATION CLIENT");
    expect(replicaMonitorPrivilege("10.4.30-MariaDB")).toBe("REPLICATION CLIENT");
    expect(replicaMonitorPrivilege("8.0.36")).toBe("REPLICATION CLIENT");
    expect(replicaMonitorPrivilege("8.4.0-google")).toBe("REPLICATION CLIENT");
  });

  it("takes only the server's access-denied errors for a missing privilege", () => {
    for (const errno of [1044, 1142, 1143, 1227]) expect(isAccessDenied({ errno })).toBe(true);
    expect(isAccessDenied({ errno: 1146 })).toBe(false);
    expect(isAccessDenied(new Error("connect ECONNREFUSED"))).toBe(false);
  });

  it("writes the GRANT an operator can paste", () => {
    expect(grantStatement("PROCESS", "*.*", "'archiver'@'%'")).toBe(
      "GRANT PROCESS ON *.* TO 'archiver'@'%';",
    );
  });

  it("reads the ON DELETE rule from the dictionary's type bits, as MariaDB and MySQL 8 both set them", () => {
    expect([0, 1, 2, 16, 1 | 4, 2 | 32].map(onDeleteRule)).toEqual([
      "RESTRICT",
      "CASCADE",
      "SET NULL",
      "NO ACTION",
      "CASCADE",
      "SET NULL",
    ]);
  });
});
