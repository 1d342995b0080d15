import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerPerf(program: Command, _ctx: CommandContext): void {
  program
    .command('perf')
    .description('perf_analyzer-style sweep over concurrency and batch size')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('perf');
    });
}
