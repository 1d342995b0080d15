import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { NotImplementedError } from '../../errors.js';

export function registerInit(program: Command, _ctx: CommandContext): void {
  program
    .command('init <model_name>')
    .description('scaffold a model from a template or an ONNX file')
    .allowUnknownOption()
    .action(() => {
      throw new NotImplementedError('init');
    });
}
