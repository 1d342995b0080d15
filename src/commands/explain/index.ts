import { Option, type Command } from 'commander';
import type { CommandContext } from '../../cli.js';

export interface ExplainFlags {
  modelRepository?: string;
  format?: 'text' | 'json';
}

export function registerExplain(program: Command, ctx: CommandContext): void {
  program
    .command('explain [log]')
    .description("map a tritonserver log's model-load failures to the gebe rules that catch them before deploy (log: a file, or - / nothing for stdin)")
    .option('--model-repository <dir>', 'the repository the server loaded: point at the file and line of each problem')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (log: string | undefined, flags: ExplainFlags) => {
      const { runExplain } = await import('./run.js');
      ctx.setExitCode(await runExplain({ log: log ?? '-', modelRepository: flags.modelRepository, format: flags.format ?? 'text' }, ctx.io));
    });
}
