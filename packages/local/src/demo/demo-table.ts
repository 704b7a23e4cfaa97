import type { Connection } from "mysql2/promise";

const STATUSES = ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"];
const CURRENCIES = ["EUR", "USD", "GBP", "MXN"];
const NOTES = [
  "",
  "leave at the door",
  "gift wrap 🎁",
  "fragile — handle with care",
  "llamar antes de entregar",
  "出荷前に連絡",
];

/** Creates `table` afresh with about `perDay` rows a day for `days` days ending yesterday. */
export async function createDemoTable(
  db: Connection,
  options: { table: string; days: number; perDay: number; today: Date },
) {
  const table = options.table;
  await db.query(`DROP TABLE IF EXISTS \`${table}\``);
  await db.query(`
    CREATE TABLE \`${table}\` (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      customer_id INT UNSIGNED NOT NULL,
      status ENUM('pending','paid','shipped','delivered','cancelled','refunded') NOT NULL,
      total DECIMAL(12,2) NOT NULL,
      currency CHAR(3) NOT NULL,
      items JSON NULL,
      note VARCHAR(255) NULL,
      created_at DATETIME(6) NOT NULL,
      updated_at TIMESTAMP NULL,
      KEY idx_created_at (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const start =
    Date.UTC(options.today.getUTCFullYear(), options.today.getUTCMonth(), options.today.getUTCDate()) -
    options.days * 86_400_000;
  let rows = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await db.query(
      `INSERT INTO \`${table}\` (customer_id, status, total, currency, items, note, created_at, updated_at) VALUES ?`,
      [batch],
    );
    rows += batch.length;
    batch = [];
  };
  for (let day = 0; day < options.days; day++) {
    // Weekends are quieter and a few days have no orders at all: gaps are normal.
    const weekday = new Date(start + day * 86_400_000).getUTCDay();
    const count =
      random() < 0.02
        ? 0
        : Math.round(options.perDay * (weekday % 6 === 0 ? 0.6 : 1) * (0.7 + random() * 0.6));
    for (let i = 0; i < count; i++) {
      const created = new Date(start + day * 86_400_000 + Math.floor(random() * 86_400_000));
      const micros = String(Math.floor(random() * 1_000_000)).padStart(6, "0");
      const createdAt = `${created.toISOString().slice(0, 19).replace("T", " ")}.${micros}`;
      const items = JSON.stringify([
        { sku: `SKU-${Math.floor(random() * 9999)}`, qty: 1 + Math.floor(random() * 4) },
      ]);
      batch.push([
        1 + Math.floor(random() * 50_000),
        pick(STATUSES),
        (random() * 500).toFixed(2),
        pick(CURRENCIES),
        items,
        pick(NOTES) || null,
        createdAt,
        random() < 0.5 ? createdAt.slice(0, 19) : null,
      ]);
      if (batch.length >= 5000) await flush();
    }
  }
  await flush();
  return rows;
}
