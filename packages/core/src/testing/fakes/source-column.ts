import { toLogicalType } from "../../adapters/mysql/mysql-logical-type";
import type { SourceColumn } from "../../model/table-schema";

/**
 * A source column as MariaDB's information_schema describes a column of
 * `columnType` (`bigint(20) unsigned`, `datetime(6)`, `decimal(12,2)`,
 * `varchar(20)`), with the logical type the MySQL adapter gives it: for
 * schemas of in-memory tables, and DDL from a schema (COLUMN_TYPE is valid DDL).
 */
export function sourceColumn(name: string, columnType: string, nullable = true): SourceColumn {
  const dataType = columnType.replace(/[( ].*$/, "");
  const [precision, scale] = (/\((\d+)(?:,(\d+))?\)/.exec(columnType) ?? []).slice(1).map(Number);
  const temporal = dataType === "datetime" || dataType === "timestamp" || dataType === "time";
  const logicalType = toLogicalType({
    dataType,
    columnType,
    numericPrecision: temporal ? null : (precision ?? null),
    numericScale: temporal ? null : (scale ?? 0),
    datetimePrecision: temporal ? (precision ?? 0) : null,
  });
  if (!logicalType) throw new Error(`no logical type for ${columnType}`);
  return { name, dataType, columnType, nullable, logicalType };
}
