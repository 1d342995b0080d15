import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerServe(program: Command, _ctx: CommandContext): void {
  program
    .command('serve [repo]')
    .description('serve a model repository over KServe v2 (HTTP, gRPC, metrics)')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('serve');
    });
}
