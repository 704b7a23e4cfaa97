import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, describe_, source, sourceTables } from "../../testing/mysql-source-tables";

beforeAll(sourceTables.create);
afterAll(sourceTables.drop);

describe("describeTable after a schema change", () => {
  it("sees every change to columns and indexes, invisible columns included, and a dropped table", async () => {
    await db.connection.query("CREATE TABLE shifting (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL)");
    const names = async () => (await describe_("shifting")).columns.map((c) => `${c.name} ${c.columnType}`);
    expect(await names()).toEqual(["id int(11)", "at datetime"]);
    expect(await names()).toEqual(["id int(11)", "at datetime"]);
    await db.connection.query("ALTER TABLE shifting ADD COLUMN note VARCHAR(10) NULL");
    expect(await names()).toEqual(["id int(11)", "at datetime", "note varchar(10)"]);
    await db.connection.query("ALTER TABLE shifting ADD COLUMN hidden INT NULL INVISIBLE");
    expect(await names()).toContain("hidden int(11)");
    await db.connection.query("ALTER TABLE shifting MODIFY note VARCHAR(30) NULL");
    expect(await names()).toContain("note varchar(30)");
    expect((await describe_("shifting")).indexLeadingColumns).not.toContain("at");
    await db.connection.query("ALTER TABLE shifting ADD KEY (at)");
    expect((await describe_("shifting")).indexLeadingColumns).toContain("at");
    await db.connection.query("DROP TABLE shifting");
    expect(await source.describeTable("shifting")).toBeUndefined();
  });

  it("is not fooled by the AUTO_INCREMENT counter, which moves with every insert", async () => {
    await db.connection.query(
      "CREATE TABLE counting (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME NOT NULL) AUTO_INCREMENT = 5",
    );
    const first = await describe_("counting");
    await db.connection.query("INSERT INTO counting (at) VALUES (NOW()), (NOW())");
    expect(await describe_("counting")).toBe(first);
  });
});
