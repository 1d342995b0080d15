import { Command } from 'commander';
import { PROTOCOL_FLAG } from '../protocol-option.js';
import { addConnectionOptions } from '../connection-option.js';
import type { CommandContext } from '../../cli.js';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { parsePerfFlags, type PerfFlags } from './options.js';
import { IGNORED_PERF_ANALYZER_FLAGS } from './perf-analyzer-flags.js';
import { acceptIgnoredFlags } from '../ignored-flags.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerPerf(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('perf')
    .description('perf_analyzer-style sweep over concurrency and batch size (in process or against a KServe v2 server)')
    .option('-m, --model <name>', 'model to measure')
    .option('-x, --model-version <n>', 'model version (default: the latest the target serves)')
    .option('--model-repository <dir>', 'run the model in process from this repository (default: ./model_repository when present)')
    .option('-u, --url <host:port>', 'measure a running KServe v2 server instead')
    .option(PROTOCOL_FLAG, 'protocol for -u (default: http, with the binary tensor extension)')
    .option('--shared-memory <kind>', 'how tensors reach a server (-u): none (in the requests) or system (a POSIX shared-memory object on this host, registered with the server), as perf_analyzer (default: none)')
    .option('--output-shared-memory-size <bytes>', 'with --shared-memory system: bytes of shared memory for each output (default: 102400)')
    .option('--trace-level <level>', 'with -u: trace the model on the server during the run, as perf_analyzer: OFF, TIMESTAMPS or TENSORS (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--trace-rate <n>', 'with -u: the server traces every n-th request of the model (perf_analyzer\'s; default: the server\'s)')
    .option('--trace-count <n>', 'with -u: how many requests the server traces (-1: no limit)')
    .option('--log-frequency <n>', 'with -u: traces per trace file on the server (0: one file, written when the server stops)')
    .option('--input-tensor-format <format>', 'with -u over HTTP: send the inputs as binary data or JSON `data`, as perf_analyzer (default: binary)')
    .option('--output-tensor-format <format>', 'with -u over HTTP: ask for the outputs as binary data or JSON, as perf_analyzer (default: binary)')
    .option('--streaming', 'with -i grpc: send the requests on gRPC ModelStreamInfer streams (perf_analyzer\'s --streaming; a decoupled model answers no other way)')
    .option('--concurrency <range>', 'concurrency levels: start:end[:step] or a list, e.g. 1:16 or 1,2,4,8 (default: 1)')
    .option('--concurrency-range <range>', 'perf_analyzer spelling of --concurrency')
    .option('--request-rate-range <range>', 'fixed request rates (req/s) instead of concurrency: start:end[:step] or a list')
    .option('--request-distribution <kind>', 'how requests are spaced at a fixed rate: constant or poisson (default: constant)')
    .option('--request-intervals <file>', 'send requests with the gaps in this file (µs, one per line, cycled) instead of a concurrency or request-rate sweep; reported as the request rate they make')
    .option('-b, --batch-size <n|list>', 'batch size, or a list to sweep every batch × load pair, e.g. 1,4,8 (default: 1)')
    .option('-p, --measurement-interval <ms>', 'length of a time window in ms (default: 5000)')
    .option('--measurement-mode <mode>', 'end windows by time (time_windows) or by request count (count_windows) (default: time_windows)')
    .option('--measurement-request-count <n>', 'requests per count window (default: 50)')
    .option('-s, --stability-percentage <pct>', 'allowed spread of the last 3 windows (default: 10)')
    .option('-r, --max-trials <n>', 'windows to try before giving up on stability (default: 10)')
    .option('--percentile <p>', 'judge stability and --latency-threshold on this latency percentile instead of the average')
    .option('--shape <name:d1,d2>', 'shape of a dynamic input without the batch dimension (repeatable)', collect)
    .option('--input-data <data>', 'request data: zero, random, a JSON file, or a directory with one raw (BYTES: one string a line) file per input (default: zero)')
    .option('--string-length <n>', 'characters of the random strings sent for BYTES inputs with --input-data random (default: 128)')
    .option('--string-data <string>', 'send this string as every element of BYTES inputs, with zero or random data')
    .option('--request-parameter <name:value:type>', 'a parameter every infer request carries; type string, int or bool (repeatable)', collect)
    .option('--sequence-length <n>', 'requests per sequence for a sequence model, each virtual user running its own (default: 20 when the model has sequence_batching)')
    .option('--sequence-length-variation <pct>', 'how far each sequence length may differ from --sequence-length, in percent (default: 20)')
    .option('--sequence-id-range <start[:end]>', 'sequence ids to use, shared out among the virtual users (default: 1 up)')
    .option('--warmup-request-count <n>', 'requests sent before measuring, per batch size (default: 0)')
    .option('-l, --latency-threshold <ms>', 'also name the best setting whose latency stays under this')
    .option('--client-threads <n>', 'client threads for -u targets (default: one per core, at most the concurrency; 0 = main thread)')
    .option('-f <file.csv>', "write perf_analyzer's CSV (latencies in µs)")
    .option('--json', 'print the report as JSON')
    .option('--report <file.html>', 'write a self-contained HTML report with charts')
    .option('--profile-export-file <file.json>', "write every measured request's timestamps in perf_analyzer's profile export JSON");
  acceptIgnoredFlags(addConnectionOptions(cmd), IGNORED_PERF_ANALYZER_FLAGS)
    .action(async (flags: PerfFlags) => {
      const opts = parsePerfFlags(flags, ctx.io.cwd);
      const { runPerf } = await import('./run.js');
      const report = await runPerf(opts, { io: ctx.io });
      // 1, as for findings: every setting ran, and some failed (their rows say why).
      ctx.setExitCode(report.rows.some((r) => r.status === 'failed') ? EXIT_FINDINGS : EXIT_OK);
    });
}
