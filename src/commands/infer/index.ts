import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerInfer(program: Command, _ctx: CommandContext): void {
  program
    .command('infer')
    .description('send one inference request in process or to a server')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('infer');
    });
}
