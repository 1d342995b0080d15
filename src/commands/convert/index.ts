import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerConvert(program: Command, _ctx: CommandContext): void {
  program
    .command('convert [path]')
    .description('compile ONNX to .om with ATC, arguments derived from config.pbtxt')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('convert');
    });
}
