import { ArchiverError, InvalidInputError, messageOf } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import { Command, CommanderError } from "commander";
import { type LocalConfig, loadLocalConfig } from "../config/load-local-config";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { createCliLogger } from "./cli-logger";
import { daysCommand } from "./days-command";
import { createScreen, type Screen } from "./progress-reporter";
import type { StatusSources } from "./status-sources";

/**
 * What a command opens once config is read and the services answer. Each
 * call opens anew, and whatever a command opened is closed after it ran. The
 * drivers load when opened, so a command loads only the ones it uses.
 */
interface Services {
  /** The configuration the command runs with (loadLocalConfig). */
  readonly config: LocalConfig;
  /** Every adapter config selects (createRuntime). */
  runtime(): Promise<Runtime>;
  /** Only what plain `status` reads: no MySQL pool, warehouse or BullMQ (openStatusSources). */
  statusSources(): Promise<StatusSources>;
}

type Action = (services: Services, screen: Screen) => Promise<number>;

/**
 * `archiver <command>`: parses argv, opens what the command runs on from the
 * environment, runs the command and returns its exit code. Errors are caught
 * here, once, and printed as one line.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let action: Action | undefined;
  const program = new Command("archiver")
    .description("Copy old MySQL rows day by day into a warehouse, then delete them safely")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command("publish")
    .description("deliver a migration or cleanup message to the entry function, as Pub/Sub would")
    .option("--message <json>", "the message as JSON")
    .option("--file <path>", "read the message from a file (- for stdin)")
    .option("--wait", "then work the local queue until it is empty")
    .argument("[source]", "- to read the message from stdin (the default when neither option is given)")
    .action((source: string | undefined, options) => {
      if (source !== undefined && source !== "-") {
        throw new InvalidInputError("source", `unexpected argument "${source}"; use --message, --file or -`);
      }
      // Commands load when run: `status` need not load the entry and task handlers.
      action = async (services, screen) =>
        (await import("./publish-command")).publishCommand(await services.runtime(), options, io, screen);
    });
  program
    .command("worker")
    .description(
      "work the local queue jobs-migration, and with ARCHIVER_POLICIES run its policies on their schedules",
    )
    .option("--drain", "exit when the queue is empty")
    .action((options) => {
      action = async (services, screen) =>
        (await import("./worker-command")).workQueue(
          await services.runtime(),
          { ...options, policiesFile: services.config.local.policiesFile },
          screen,
        );
    });
  program
    .command("status")
    .description("queue task count and migrated days per table")
    .option("--json", "print JSON")
    .option(
      "--rebuild",
      "first write back to Redis the days the warehouse's durable record holds and Redis lacks",
    )
    .option(
      "--dataset <name>",
      "with --rebuild: the dataset whose record is read (default WAREHOUSE_DATASET)",
    )
    .action((options: { json?: boolean; rebuild?: boolean; dataset?: string }) => {
      if (options.dataset !== undefined && !options.rebuild) {
        throw new InvalidInputError("dataset", "--dataset goes with --rebuild");
      }
      action = options.rebuild
        ? async (services) =>
            (await import("./rebuild-command")).rebuildCommand(await services.runtime(), options, io)
        : async (services) =>
            (await import("./status-command")).statusCommand(
              await services.statusSources(),
              { ...options, policiesFile: services.config.local.policiesFile, config: services.config },
              io,
            );
    });

  program
    .command("runs")
    .description(
      "the latest finished runs (per table and mode, per message) from the warehouse's run history",
    )
    .option("--table <table>", "only the runs of this source table")
    .option("--dataset <name>", "the dataset whose run history is read (default WAREHOUSE_DATASET)")
    .option("--json", "print JSON")
    .action((options: { table?: string; dataset?: string; json?: boolean }) => {
      action = async (services) => (await import("./runs-command")).runsCommand(services.config, options, io);
    });

  program
    .command("check")
    .description("what the configured MySQL account may do for a table: copy it, and with --cleanup clean it")
    .requiredOption("--table <table>", "the MySQL table to check")
    .option(
      "--cleanup",
      "check what a cleanup takes too (and each throttle the CLEANUP_* variables switch on)",
    )
    .option("--json", "print JSON")
    .action((options: { table: string; cleanup?: boolean; json?: boolean }) => {
      action = async (services) =>
        (await import("./check-command")).checkCommand(await services.runtime(), options, io);
    });

  let daysExit: number | undefined;
  program.addCommand(
    daysCommand(io, {
      onExit: (code) => {
        daysExit = code;
      },
    }),
  );

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    if (error instanceof InvalidInputError) {
      writeLine(io.stderr, `error: ${error.message}`);
      return EXIT.badInput;
    }
    throw error;
  }
  if (!action) return daysExit ?? EXIT.ok;
  return runAction(action, io);
}

async function runAction(action: Action, io: CliIo): Promise<number> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    // The CLI shares `.env` with `pnpm dev`, and a bad variable of either stops it with one message.
    const config = loadLocalConfig(io.env);
    // Loaded here, not at start-up: `--help`, `days` and a mistyped command need no driver.
    const { unreachableServices } = await import("../services/check-services");
    const down = await unreachableServices(config);
    if (down.length > 0) {
      for (const line of down) writeLine(io.stderr, `error: ${line}`);
      return EXIT.failed;
    }
    const screen = createScreen(io);
    // On a terminal the log is short lines for a person; otherwise JSON lines, as the functions log.
    const logger = createCliLogger({
      level: config.logLevel,
      text: io.stdout.isTTY === true,
      print: screen.print,
      status: screen.status,
    });
    const opening =
      <T extends { close(): Promise<void> }>(open: () => Promise<T>) =>
      async (): Promise<T> => {
        const resource = await open();
        opened.push(resource);
        return resource;
      };
    const services: Services = {
      config,
      runtime: opening(async () =>
        (await import("@table-archiver/core/runtime")).createRuntime(config, { logger }),
      ),
      statusSources: opening(async () =>
        (await import("./status-sources")).openStatusSources(config, logger),
      ),
    };
    return await action(services, screen);
  } catch (error) {
    const bad =
      error instanceof ArchiverError && (error.code === "INVALID_INPUT" || error.code === "INVALID_CONFIG");
    writeLine(io.stderr, `error: ${messageOf(error)}`);
    return bad ? EXIT.badInput : EXIT.failed;
  } finally {
    for (const resource of opened) await resource.close();
  }
}
