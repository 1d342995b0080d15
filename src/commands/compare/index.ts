import { addConnectionOptions } from '../connection-option.js';
import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { parseCompareFlags, type CompareFlags } from './options.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCompare(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('compare')
    .description("accuracy parity: the model in process against another model file, a server or stored outputs (msit's metrics)")
    .option('-m, --model <name>', 'model to check')
    .option('--model-repository <dir>', 'model repository (default: ./model_repository)')
    .option('--model-version <n>', 'version (default: the highest)')
    .option('--against <target>', 'a model file of the model (1/model.om), http://host:port, grpc://host:port, or a directory of stored outputs')
    .option('--input-data <data>', 'zero, random (default), a perf-style JSON file, or directories of .npy/.bin/image files, one per input (comma-separated)')
    .option('--shape <name:d1,d2>', 'dims for dynamic inputs, without the batch (repeatable)', collect)
    .option('--atol <x>', 'absolute tolerance (default: 1e-5)')
    .option('--rtol <x>', 'relative tolerance (default: 1e-3): an element is outside when |a-e| > atol + rtol·|e|')
    .option('--max-outside <pct>', 'percentage of elements allowed outside the tolerance (default: 0)')
    .option('--min-cosine <x>', 'also fail an output whose cosine similarity is below this')
    .option('--worst <n>', 'worst elements to list per output (default: 5)')
    .option('--dump <dir>', 'write every input and output as .npy under this directory')
    .option('--report <file.html>', 'write an HTML report with a histogram of errors per output')
    .option('--json', 'print the report as JSON');
  addConnectionOptions(cmd, '--against')
    .action(async (flags: CompareFlags) => {
      const opts = parseCompareFlags(flags, ctx.io.cwd);
      const { runCompare } = await import('./run.js');
      const report = await runCompare(opts, { io: ctx.io });
      ctx.setExitCode(report.pass ? EXIT_OK : EXIT_FINDINGS);
    });
}
