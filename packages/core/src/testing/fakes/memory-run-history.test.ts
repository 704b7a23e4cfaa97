import { describeRunHistoryContract } from "../run-history-contract";
import { createMemoryRunHistory } from "./memory-run-history";

describeRunHistoryContract("in memory", async () => ({
  history: createMemoryRunHistory(),
  cleanup: async () => {},
}));
