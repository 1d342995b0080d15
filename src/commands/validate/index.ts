import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerValidate(program: Command, _ctx: CommandContext): void {
  program
    .command('validate [path...]')
    .description('lint config.pbtxt, repository layout and config/model agreement')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('validate');
    });
}
