import type { AccessCheck, AccountCheck } from "../../ports/access-check";

/** An AccountCheck whose account may do everything, unless a test lists what it lacks in `missing`. */
export interface MemoryAccountCheck extends AccountCheck {
  missing: AccessCheck[];
}

export function createMemoryAccountCheck(): MemoryAccountCheck {
  const check: MemoryAccountCheck = {
    missing: [],
    async describe() {
      return { account: "'archiver'@'%'", server: "in-memory source" };
    },
    async copy(table) {
      return [{ for: "copy", need: `read ${table}`, privilege: "SELECT", ok: true }];
    },
    async cleanup(table) {
      return [
        { for: "cleanup", need: `delete rows of ${table}`, privilege: "DELETE", ok: true },
        ...check.missing,
      ];
    },
  };
  return check;
}
