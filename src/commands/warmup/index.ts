import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerWarmup(program: Command, _ctx: CommandContext): void {
  program
    .command('warmup [repo]')
    .description('pre-compile and warm each batch size; write model_warmup')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('warmup');
    });
}
