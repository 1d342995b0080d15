import { Option, type Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { FORMATTERS } from '../../core/lint/formatters/index.js';
import { toValidateOptions, type ValidateFlags } from './options.js';

export { toValidateOptions, type ValidateOptions } from './options.js';

export function registerValidate(program: Command, ctx: CommandContext): void {
  program
    .command('validate [path...]')
    .description('lint config.pbtxt, repository layout and config/model agreement (default path: ./model_repository)')
    .addOption(new Option('--format <format>', 'output format').choices(Object.keys(FORMATTERS)).default('text'))
    .option('--fix', 'apply safe fixes in place, then report what remains')
    .option('--strict', 'warnings fail too (exit 1)')
    .option('--rule <ID=level>', 'set a rule to off|info|warning|error (repeatable)', (value: string, prev: string[] = []) => [...prev, value])
    .option('--against <baseline>', 'also report breaking changes against a git ref, a directory or a tarball')
    .option('--against-rule <ID=level>', 'set a breaking-change rule to off|info|warning|error (repeatable)', (value: string, prev: string[] = []) => [...prev, value])
    .option('--changed', 'report only models that differ from the --against baseline')
    .option('--max-warnings <n>', 'more warnings than n fail the run (exit 1)')
    .option('--config <file>', `use this config file instead of the nearest gebe.config.json`)
    .option('--print-config <path>', 'print the effective settings for a path (JSON) and exit')
    .option('--explain <RULE_ID>', "print a rule's documentation and exit")
    .action(async (paths: string[], flags: ValidateFlags) => {
      const { runValidate } = await import('./run.js');
      ctx.setExitCode(await runValidate(toValidateOptions(paths, flags), ctx.io));
    });
}
