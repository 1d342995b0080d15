import { addConnectionOptions } from '../connection-option.js';
import { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { parseTuneFlags, type TuneFlags } from './options.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerTune(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('tune')
    .description('search instance count, dynamic batching and queue delay for the fastest config under latency/throughput constraints (model_analyzer-style)')
    .option('-m, --model <name>', 'model to tune')
    .option('--model-version <n>', 'model version (default: the latest)')
    .option('--model-repository <dir>', 'repository to run the model from in process (default: ./model_repository); with -u, the local copy --write edits')
    .option('-u, --url <host:port>', 'tune a running server instead (HTTP; it must run with --model-control-mode explicit: each trial reloads the model)')
    .option('--client-threads <n>', 'client threads for -u, as gebe perf')
    .option('--latency-budget <metric=time>', 'constraint such as p99=5ms (avg, p50, p90, p95, p99; us, ms, s); repeatable', collect)
    .option('--min-throughput <infer/s>', 'constraint: at least this many inferences per second')
    .option('--objective <kind>', 'throughput (default), latency (lowest p99), or weighted')
    .option('--throughput-weight <w>', 'with --objective weighted (default: 1)')
    .option('--latency-weight <w>', 'with --objective weighted (default: 1)')
    .option('--exhaustive', 'measure every point instead of the quick hill-climbing search')
    .option('--trial-limit <n>', 'most trials to run, the baseline included (default: 40)')
    .option('--max-instance-count <n>', 'largest instance count to try (default: 4)')
    .option('--max-queue-delays <list>', 'max_queue_delay_microseconds values to try (default: 0,100,500,2000)')
    .option('--concurrency <range>', 'client concurrency levels to try, as perf takes them (default: 1,2,4,8)')
    .option('-b, --batch-size <n>', 'client batch size per request (default: 1)')
    .option('--measurement-interval <ms>', 'window length per trial (default: 1000 here)')
    .option('--measurement-mode <time_windows|count_windows>', 'as gebe perf')
    .option('--measurement-request-count <n>', 'as gebe perf')
    .option('-s, --stability-percentage <pct>', 'as gebe perf (default: 10)')
    .option('-r, --max-trials <n>', 'windows per trial before giving up on stability, as gebe perf (default: 10)')
    .option('--percentile <p>', 'judge stability on this latency percentile, as gebe perf')
    .option('--shape <name:d1,d2>', 'shape of a dynamic input without the batch dimension (repeatable)', collect)
    .option('--input-data <zero|random|file.json>', 'request data (default: zero)')
    .option('--warmup-request-count <n>', 'requests sent before measuring each trial (default: 0)')
    .option('--checkpoint <file>', 'where trials are kept so an interrupted search resumes (default: gebe-tune-<model>.checkpoint.json)')
    .option('--fresh', 'ignore the checkpoint and measure every trial again')
    .option('--write', "write the winner's settings into config.pbtxt (comments kept)")
    .option('--json', 'print the report as JSON')
    .option('--report <file.html>', 'write an HTML report with the Pareto front chart');
  addConnectionOptions(cmd)
    .action(async (flags: TuneFlags) => {
      const opts = parseTuneFlags(flags, ctx.io.cwd);
      const { runTune } = await import('./run.js');
      const report = await runTune(opts, { io: ctx.io });
      ctx.setExitCode(report.winner ? EXIT_OK : EXIT_FINDINGS);
    });
}
