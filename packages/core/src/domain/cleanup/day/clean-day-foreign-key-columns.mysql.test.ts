import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { rowsOf } from "../../../testing/cleanup/referencing-tables";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("cleanDay on a table other tables reference", () => {
  it("a foreign key on a composite key of a table without an integer key (filter-value chunks)", async () => {
    const parent = uniqueName("lines");
    await fx.query(
      `CREATE TABLE \`${parent}\` (
         order_no INT NOT NULL, line INT NOT NULL, created_at DATETIME NOT NULL, sku VARCHAR(8) NOT NULL,
         PRIMARY KEY (order_no, line), KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    const child = uniqueName("shipments");
    await fx.query(
      `CREATE TABLE \`${child}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_no INT NULL, line INT NULL,
         KEY (order_no, line),
         CONSTRAINT \`fk_${child}\` FOREIGN KEY (order_no, line) REFERENCES \`${parent}\` (order_no, line) ON DELETE CASCADE
       ) ENGINE=InnoDB`,
    );
    for (const [order, day] of [
      [1, "2024-09-07"],
      [2, "2024-09-07"],
      [3, "2024-09-08"],
    ] as const) {
      for (let line = 1; line <= 2; line++) {
        await fx.query(`INSERT INTO \`${parent}\` VALUES (?, ?, ?, 'x')`, [
          order,
          line,
          `${day} 0${order}:0${line}:00`,
        ]);
      }
    }
    // Line (2, 2) of 09-07 is shipped; a shipment without a line references nothing.
    await fx.query(`INSERT INTO \`${child}\` (order_no, line) VALUES (2, 2), (NULL, NULL)`);
    await fx.copy(parent, "2024-09-07");
    await fx.copy(parent, "2024-09-08");
    const shipments = await rowsOf(child);
    const lines = await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`);

    const error = await refusal(
      cleanDay(fx.deps({ settings: { chunkRows: 1 } }), cleanTask(parent, "2024-09-07")),
    );

    expect(error.reason).toBe("foreign-key");
    expect(error.message).toContain(
      `1 row of ${child} reference these rows through foreign key fk_${child} (order_no, line ON DELETE CASCADE)`,
    );
    expect(await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`)).toEqual(lines);
    expect(await rowsOf(child)).toEqual(shipments);

    await cleanDay(fx.deps({ settings: { chunkRows: 1 } }), cleanTask(parent, "2024-09-08"));
    expect(await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`)).toEqual(lines.slice(0, 4));
    expect(await rowsOf(child)).toEqual(shipments);
  });

  it("a foreign key on a unique column that is not the key", async () => {
    const parent = uniqueName("accounts");
    await fx.query(
      `CREATE TABLE \`${parent}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, code VARCHAR(8) NOT NULL, created_at DATETIME NOT NULL,
         UNIQUE KEY (code), KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    const child = uniqueName("logins");
    await fx.query(
      `CREATE TABLE \`${child}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, account_code VARCHAR(8) NULL, KEY (account_code),
         CONSTRAINT \`fk_${child}\` FOREIGN KEY (account_code) REFERENCES \`${parent}\` (code) ON DELETE SET NULL
       ) ENGINE=InnoDB`,
    );
    await fx.query(
      `INSERT INTO \`${parent}\` (code, created_at) VALUES ('a', '2024-09-09 01:00:00'), ('b', '2024-09-09 02:00:00'), ('c', '2024-09-10 01:00:00')`,
    );
    await fx.query(`INSERT INTO \`${child}\` (account_code) VALUES ('b'), ('c')`);
    await fx.copy(parent, "2024-09-09");
    await fx.copy(parent, "2024-09-10");
    const logins = await rowsOf(child);

    for (const day of ["2024-09-09", "2024-09-10"] as const) {
      const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, day)));
      expect(error.message).toContain(
        `1 row of ${child} reference these rows through foreign key fk_${child} (account_code ON DELETE SET NULL)`,
      );
    }
    expect((await rowsOf(parent)).map((row) => row.code)).toEqual(["a", "b", "c"]);
    expect(await rowsOf(child)).toEqual(logins);
  });
});
