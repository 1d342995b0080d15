import type { Command } from 'commander';
import { PROTOCOL_FLAG } from '../protocol-option.js';
import { addConnectionOptions } from '../connection-option.js';
import type { CommandContext } from '../../cli.js';
import { repositoryOptions, takeRepository } from '../repository-option.js';
import { collect, parseInferOptions, type RawInferOptions } from './options.js';

export function registerInfer(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('infer')
    .description('send one inference request in process or to a server')
    .option('-m, --model <name>', 'model to run');
  for (const option of repositoryOptions('model repository (in process; with -u, where label files are read) (default: model_repository)')) cmd.addOption(option);
  cmd
    .option('--model-version <n>', 'version (default: the highest)')
    .option('-u, --url <host:port>', 'a running KServe v2 server (gebe serve, Triton) instead of in process')
    .option(PROTOCOL_FLAG, 'protocol for -u (default: http)')
    .option('--input <[name=]file|zero|random>', 'a PNG/PGM image (repeat to batch several), a JSON file {"data": [{"<input>": [...]}]}, or zero / random values for every input', collect)
    .option('--random', 'random values for every input (same as --input random)')
    .option('--shape <name:dims>', 'dims for dynamic inputs, without the batch (repeatable)', collect)
    .option('-k, --top-k <n>', 'classes to show for outputs with a label_filename', '3')
    .option('--invert <mode>', 'grey images: auto (invert dark-on-light), yes, no', 'auto')
    .option('--json', 'print the result as JSON');
  addConnectionOptions(cmd)
    .action(async (raw: RawInferOptions) => {
      const { runInfer } = await import('./run.js');
      const repo = takeRepository(raw, ctx.io);
      await runInfer(parseInferOptions({ ...raw, modelRepository: repo }), { io: ctx.io });
    });
}
