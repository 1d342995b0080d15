/**
 * The gebe program: registers the commands and global flags, and maps errors to exit codes.
 * This is the only place that decides an exit code; commands return one or throw a typed error.
 */
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { EXIT_FATAL, EXIT_OK, GebeError } from './errors.js';
import { colors, processIO, type IO } from './io.js';
import { registerInit } from './commands/init/index.js';
import { registerValidate } from './commands/validate/index.js';
import { registerConvert } from './commands/convert/index.js';
import { registerWarmup } from './commands/warmup/index.js';
import { registerServe } from './commands/serve/index.js';
import { registerPerf } from './commands/perf/index.js';
import { registerInfer } from './commands/infer/index.js';
import { registerExplain } from './commands/explain/index.js';
import { registerCompare } from './commands/compare/index.js';
import { registerTune } from './commands/tune/index.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/** What every command's action receives besides its own options. */
export interface CommandContext {
  io: IO;
  /** Set by an action: the exit code the program ends with. */
  setExitCode(code: number): void;
}

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('gebe')
    .description('Developer toolchain for Ascend model repositories (Triton GE backend)')
    .version(version, '-V, --version')
    .option('--verbose', 'print stack traces for errors')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  for (const register of [registerInit, registerValidate, registerConvert, registerWarmup, registerServe, registerPerf, registerInfer, registerCompare, registerTune, registerExplain]) {
    register(program, ctx);
  }
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/** Runs gebe with argv (node, script, ...args) and resolves to the exit code. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  let exitCode = EXIT_OK;
  const ctx: CommandContext = { io, setExitCode: (code) => (exitCode = code) };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    return reportError(err, io, argv.includes('--verbose'));
  }
}

function reportError(err: unknown, io: IO, verbose: boolean): number {
  if (err instanceof CommanderError) {
    // help and --version end through exitOverride with code 0; commander already printed the message.
    return err.exitCode === 0 ? EXIT_OK : EXIT_FATAL;
  }
  const c = colors(io, 'stderr');
  if (err instanceof GebeError) {
    io.stderr.write(`${c.red('error')}: ${err.message}\n`);
    if (err.hint) io.stderr.write(`${c.dim('hint')}: ${err.hint}\n`);
    if (verbose && err.stack) io.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`${c.red('internal error')}: ${message}\n`);
  if (verbose && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
  else io.stderr.write('Run again with --verbose for the stack trace, and please report it.\n');
  return EXIT_FATAL;
}
