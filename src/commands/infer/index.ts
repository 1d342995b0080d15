import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { collect, parseInferOptions, type RawInferOptions } from './options.js';

export function registerInfer(program: Command, ctx: CommandContext): void {
  program
    .command('infer')
    .description('send one inference request in process or to a server')
    .option('-m, --model <name>', 'model to run')
    .option('--repo <dir>', 'model repository (in process; with -u, where label files are read)', 'model_repository')
    .option('--model-version <n>', 'version (default: the highest)')
    .option('-u, --url <host:port>', 'a running KServe v2 server (gebe serve, Triton) instead of in process')
    .option('-i, --protocol <http|grpc>', 'protocol for -u (default: http)')
    .option('--input <[name=]file>', 'a PNG/PGM image (repeat to batch several), or a JSON file {"data": [{"<input>": [...]}]}', collect)
    .option('--random', 'random values for every input')
    .option('--shape <name:dims>', 'dims for dynamic inputs, without the batch (repeatable)', collect)
    .option('-k, --top-k <n>', 'classes to show for outputs with a label_filename', '3')
    .option('--invert <mode>', 'grey images: auto (invert dark-on-light), yes, no', 'auto')
    .option('--json', 'print the result as JSON')
    .action(async (raw: RawInferOptions) => {
      const { runInfer } = await import('./run.js');
      await runInfer(parseInferOptions(raw), { io: ctx.io });
    });
}
