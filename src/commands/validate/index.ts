import { Option, type Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { FORMATTERS } from '../../core/lint/formatters/index.js';
import { repositoryOptions, takeRepository } from '../repository-option.js';
import { toValidateOptions, type ValidateFlags } from './options.js';

export { toValidateOptions, type ValidateOptions } from './options.js';

export function registerValidate(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('validate [path...]')
    .description('lint config.pbtxt, repository layout and config/model agreement ([path] default: ./model_repository)');
  cmd.addOption(repositoryOptions('a model repository to validate, as a [path] argument')[0]!);
  cmd
    .addOption(new Option('--format <format>', 'output format').choices(Object.keys(FORMATTERS)).default('text'))
    .option('--fix', 'apply the fixes that cannot change meaning, in place, then report what remains')
    .option('--fix-dry-run', 'print those fixes as a unified diff (per file, git style) without writing; exit as validate would')
    .option('--strict', 'warnings fail too (exit 1)')
    .option('--rule <ID=level>', 'set a rule to off|info|warning|error (repeatable)', (value: string, prev: string[] = []) => [...prev, value])
    .option('--against <baseline>', 'also report breaking changes against a git ref, a directory or a tarball')
    .option('--against-rule <ID=level>', 'set a breaking-change rule to off|info|warning|error (repeatable)', (value: string, prev: string[] = []) => [...prev, value])
    .option('--changed', 'report only models that differ from the --against baseline')
    .option('--max-warnings <n>', 'more warnings than n fail the run (exit 1)')
    .option('--model-config-name <name>', 'lint each model\'s configs/<name>.pbtxt where it has one, else its config.pbtxt: what tritonserver --model-config-name <name> loads (without it: config.pbtxt and every configs/*.pbtxt)')
    .option('--config <file>', `use this config file instead of the nearest gebe.config.json`)
    .option('--print-config <path>', 'print the effective settings for a path (JSON) and exit')
    .option('--explain <RULE_ID>', "print a rule's documentation and exit")
    .action(async (paths: string[], flags: ValidateFlags) => {
      const { runValidate } = await import('./run.js');
      const repo = takeRepository({ modelRepository: flags.modelRepository }, ctx.io);
      ctx.setExitCode(await runValidate(toValidateOptions(repo !== undefined ? [...paths, repo] : paths, flags), ctx.io));
    });
}
