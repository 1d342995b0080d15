import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { parseWarmupOptions, type RawWarmupOptions } from './options.js';

export function registerWarmup(program: Command, ctx: CommandContext): void {
  program
    .command('warmup [repo]')
    .description('pre-compile and warm each batch size; write model_warmup')
    .option('-m, --model <name>', 'warm only this model')
    .option('-u, --url <host:port>', 'warm a running KServe v2 server instead (needs -m)')
    .option('--write', 'add model_warmup entries for the warmed batch sizes to config.pbtxt')
    .option('--runs <n>', 'steady-state runs per batch size after the warmup', '10')
    .option('--json', 'print the results as JSON')
    .action(async (repo: string | undefined, raw: RawWarmupOptions) => {
      const { runWarmup } = await import('./run.js');
      await runWarmup(parseWarmupOptions(repo, raw), { io: ctx.io });
    });
}
