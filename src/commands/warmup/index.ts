import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { repositoryOptions, takeRepository } from '../repository-option.js';
import { parseWarmupOptions, type RawWarmupOptions } from './options.js';
import { PROTOCOL_FLAG } from '../protocol-option.js';
import { addConnectionOptions } from '../connection-option.js';

export function registerWarmup(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('warmup [repo]')
    .description('pre-compile and warm each batch size; write model_warmup ([repo] default: ./model_repository)');
  cmd.addOption(repositoryOptions('the model repository (same as the [repo] argument)')[0]!);
  cmd
    .option('-m, --model <name>', 'warm only this model')
    .option('-u, --url <host:port>', 'warm a running KServe v2 server instead (needs -m)')
    .option(PROTOCOL_FLAG, 'protocol for -u (default: http; a decoupled model needs grpc)')
    .option('--write', 'add model_warmup entries for the warmed batch sizes to config.pbtxt')
    .option('--runs <n>', 'steady-state runs per batch size after the warmup', '10')
    .option('--json', 'print the results as JSON');
  addConnectionOptions(cmd)
    .action(async (repo: string | undefined, raw: RawWarmupOptions) => {
      const { runWarmup } = await import('./run.js');
      await runWarmup(parseWarmupOptions(takeRepository(raw, ctx.io, repo), raw), { io: ctx.io });
    });
}
