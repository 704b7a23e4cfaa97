import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { InfraConfigError } from "./infra-config-error";
import { type ConfigSource, readStackConfig } from "./stack-config";

// The stack keys of retention that runs itself: `retention` (through core's parsePolicies) and
// `alertEmails`. The other keys: stack-config.test.ts.

function source(values: Record<string, string>): ConfigSource {
  return {
    get: (key) => values[key],
    getSecret: (key) => (values[key] === undefined ? undefined : pulumi.secret(values[key])),
  };
}
const gcp = source({ project: "p1", region: "europe-west1" });
const minimal = {
  mysqlUrl: "mysql://archiver@10.0.0.5:3306/shop",
  mysqlPassword: "pw",
  mysqlTlsCa: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
};
const orders = {
  source_table: "orders",
  destination_table: "orders_archive",
  filter_column: "created_at",
  years_to_migrate: 2,
  months_to_migrate: 0,
  migrate_schedule: "0 2 * * *",
  cleanup_schedule: "0 3 * * 0",
  time_zone: "Europe/Paris",
};

const read = (values: Record<string, string>) => readStackConfig(source({ ...minimal, ...values }), gcp);
function refusal(values: Record<string, string>): string {
  try {
    read(values);
  } catch (error) {
    expect(error).toBeInstanceOf(InfraConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("retention", () => {
  test("is none by default, and core's policies with their defaults when set", () => {
    expect(read({}).retention).toEqual([]);
    const [policy] = read({ retention: JSON.stringify([orders]) }).retention;
    // Defaults from core: a dry-run cleanup, 20 days a run.
    expect(policy).toMatchObject({ source_table: "orders", cleanup: "dry_run", tasks_enqueued_limit: 20 });
  });

  test.each([
    [{ ...orders, time_zone: "Mars/Olympus" }, /retention "orders": time_zone: must be an IANA time zone/],
    [{ ...orders, cleanup_schedule: undefined }, /retention "orders": cleanup_schedule: is required/],
    [{ ...orders, years_to_migrate: "two" }, /retention "orders": years_to_migrate: must be an integer/],
  ])("a broken policy is refused naming its table and field (%#)", (policy, expected) => {
    expect(refusal({ retention: JSON.stringify([policy]) })).toMatch(expected);
  });

  test("a table declared twice, or a value that is not a list, is refused", () => {
    expect(refusal({ retention: JSON.stringify([orders, orders]) })).toMatch(
      /retention "orders": source_table: has a second policy/,
    );
    expect(refusal({ retention: JSON.stringify({ source_table: "orders" }) })).toMatch(
      /retention: must be a list of policies/,
    );
  });

  test("is reported with the other keys' problems, in one message", () => {
    const message = refusal({
      retention: JSON.stringify([{ ...orders, cleanup: "sometimes" }]),
      redisTier: "HUGE",
    });
    expect(message).toMatch(/retention "orders": cleanup: must be "off", "dry_run" or "delete"/);
    expect(message).toMatch(/redisTier: one of BASIC, STANDARD_HA/);
  });
});

describe("alertEmails", () => {
  test("is a list of addresses, none by default", () => {
    expect(read({}).alertEmails).toEqual([]);
    expect(read({ alertEmails: '["ops@example.com","dba@example.org"]' }).alertEmails).toEqual([
      "ops@example.com",
      "dba@example.org",
    ]);
  });

  test("refuses a malformed address by name", () => {
    const message = refusal({ alertEmails: '["ops@example.com","dba-at-example.org"]' });
    expect(message).toMatch(/alertEmails: dba-at-example.org is not an e-mail address/);
    expect(message).not.toMatch(/ops@example.com/);
  });
});
