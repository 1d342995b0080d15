/**
 * A tritonserver command line runs as it is: serve acts on Triton's flags it implements (which
 * listeners run and where, the server's name, the CPU metrics, auto-complete), and accepts the
 * rest, which are about what gebe does not have (GPUs, CUDA pools, backend libraries), naming them
 * on stderr instead of refusing the command line.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import { UsageError } from '../../../src/errors.js';
import { resolveServeOptions, type ServeFlags } from '../../../src/commands/serve/options.js';
import { IGNORED_TRITON_FLAGS, acceptIgnoredTritonFlags, givenIgnoredTritonFlags } from '../../../src/commands/serve/triton-flags.js';

const defaults: ServeFlags = {
  host: '127.0.0.1', httpPort: '8000', grpcPort: '8001', metricsPort: '8002', modelControlMode: 'none', loadModel: [],
  repositoryPollSecs: '15', exitOnError: false, exitTimeoutSecs: '30', logVerbose: false, logFormat: 'text', httpMaxBody: '64MiB',
};
const resolve = (flags: Partial<ServeFlags>) => resolveServeOptions(undefined, { ...defaults, ...flags }, '/tmp');

describe('tritonserver flags gebe accepts without effect', () => {
  it('parses a Triton command line\'s flags in Triton\'s spellings, and names each given with why', () => {
    const command = acceptIgnoredTritonFlags(new Command().exitOverride());
    command.parse(['--allow-gpu-metrics=false', '--pinned-memory-pool-byte-size=268435456', '--backend-config=python,shm-default-byte-size=1048576',
      '--backend-config', 'onnxruntime,default-max-batch-size=4', '--cuda-memory-pool-byte-size', '0:67108864', '--strict-model-config'], { from: 'user' });
    const opts = command.opts();
    expect(opts.backendConfig).toEqual(['python,shm-default-byte-size=1048576', 'onnxruntime,default-max-batch-size=4']);
    expect(givenIgnoredTritonFlags(opts)).toEqual([
      '--allow-gpu-metrics (gebe runs on no GPU)',
      '--pinned-memory-pool-byte-size (no CUDA: tensors are in host memory)',
      '--cuda-memory-pool-byte-size (no CUDA)',
      "--backend-config (gebe's backends take no configuration of Triton's backends)",
      '--strict-model-config (deprecated in Triton; see --disable-auto-complete-config)',
    ]);
    expect(givenIgnoredTritonFlags({})).toEqual([]);
  });

  it('keeps them out of --help, where the flags serve acts on are', async () => {
    const io = memoryIO();
    await main(['node', 'gebe', 'serve', '--help'], io);
    for (const { flag } of IGNORED_TRITON_FLAGS) expect(io.out()).not.toContain(flag);
    expect(io.out()).toContain('--allow-cpu-metrics');
    expect(io.out()).toContain('--http-address');
  });
});

describe('tritonserver flags serve acts on', () => {
  it('takes which listeners run, their addresses, the server\'s name, the CPU metrics and auto-complete', () => {
    const o = resolve({ allowGrpc: 'false', allowMetrics: true, httpAddress: '0.0.0.0', id: 'triton', allowCpuMetrics: 'false', metricsIntervalMs: '500', disableAutoCompleteConfig: true, modelConfigName: 'ascend310p' });
    expect(o).toMatchObject({ allowHttp: true, allowGrpc: false, allowMetrics: true, httpAddress: '0.0.0.0', serverId: 'triton', cpuMetrics: { enabled: false, intervalMs: 500 }, autoCompleteConfig: false, modelConfigName: 'ascend310p' });
    expect(resolve({})).toMatchObject({ allowHttp: true, allowGrpc: true, allowMetrics: true, cpuMetrics: { enabled: true, intervalMs: 2000 }, autoCompleteConfig: true, ignoredTritonFlags: [] });
  });

  it('takes Triton\'s --exit-on-error with its optional value (gebe\'s default stays false)', () => {
    expect(resolve({}).exitOnError).toBe(false);
    expect(resolve({ exitOnError: true }).exitOnError).toBe(true);
    expect(resolve({ exitOnError: 'false' }).exitOnError).toBe(false);
    expect(resolve({ exitOnError: 'true' }).exitOnError).toBe(true);
    expect(() => resolve({ exitOnError: 'yes' })).toThrow("--exit-on-error takes true or false, got 'yes'");
  });

  it('takes --http-thread-count: 1 to 64 native HTTP loop threads (gebe\'s default 1); with node:http it changes nothing and says so', () => {
    expect(resolve({}).httpThreads).toBe(1);
    expect(resolve({ httpThreadCount: '4' })).toMatchObject({ httpThreads: 4, ignoredTritonFlags: [] });
    expect(resolve({ httpThreadCount: '64' }).httpThreads).toBe(64);
    for (const frontend of [{ httpFrontend: 'node' }, { httpUseSsl: true, httpServerCert: 'c.pem', httpServerKey: 'k.pem' }]) {
      expect(resolve({ httpThreadCount: '8', ...frontend })).toMatchObject({
        httpThreads: 1, ignoredTritonFlags: ['--http-thread-count (node:http serves HTTP on node\'s one thread: the native front end has the loop threads)'],
      });
    }
    for (const bad of ['0', '65', 'x', '1.5', '']) {
      expect(() => resolve({ httpThreadCount: bad })).toThrow(UsageError);
      expect(() => resolve({ httpThreadCount: bad })).toThrow(`--http-thread-count must be a whole number from 1 to 64, got '${bad}'`);
    }
  });

  it('refuses values that would leave the server unreachable or make no sense, naming the flag', () => {
    expect(() => resolve({ allowHttp: 'false', allowGrpc: '0' })).toThrow('--allow-http false and --allow-grpc false leave no way to send the server a request');
    expect(() => resolve({ allowMetrics: 'maybe' })).toThrow("--allow-metrics takes true or false, got 'maybe'");
    expect(() => resolve({ metricsIntervalMs: '10' })).toThrow("--metrics-interval-ms must be a whole number of milliseconds from 100 to 3600000, got '10'");
    expect(() => resolve({ grpcAddress: '' })).toThrow('--grpc-address needs an address');
    expect(() => resolve({ id: '' })).toThrow('--id needs a name');
    for (const name of ['../secrets', 'a/b', '', '.hidden']) {
      expect(() => resolve({ modelConfigName: name })).toThrow(`--model-config-name must be a config's name (letters, digits, '_', '.', '-'; configs/<name>.pbtxt), got '${name}'`);
    }
  });
});

describe('--metrics-config', () => {
  it('takes Triton\'s latency settings: counters on and no summaries by default, Triton\'s five quantiles', () => {
    expect(resolve({}).latencyMetrics).toEqual({ counters: true, summaries: false, quantiles: [0.5, 0.9, 0.95, 0.99, 0.999], histograms: false });
    const o = resolve({ metricsConfig: ['summary_latencies=true', 'counter_latencies=false', 'summary_quantiles=0.5:0.05,0.9:0.01, 0.999:0.000001', 'summary_quantiles=0.25,0.75:0.01', 'histogram_latencies=true'] });
    // A later setting wins, as Triton's; an error may be left out (gebe's quantiles do not use it).
    expect(o.latencyMetrics).toEqual({ counters: false, summaries: true, quantiles: [0.25, 0.75], histograms: true });
    expect(o.ignoredTritonFlags).toEqual([]);
  });

  it('accepts unknown settings without effect, naming them', () => {
    expect(resolve({ metricsConfig: ['pinned_memory=true'] }).ignoredTritonFlags).toEqual([
      '--metrics-config pinned_memory=true (not a setting gebe knows: counter_latencies, summary_latencies, summary_quantiles, histogram_latencies)',
    ]);
  });

  it('refuses values it cannot read, naming the setting', () => {
    expect(() => resolve({ metricsConfig: ['summary_latencies'] })).toThrow("--metrics-config must be <setting>=<value>, got 'summary_latencies'");
    expect(() => resolve({ metricsConfig: ['summary_latencies=yes'] })).toThrow("--metrics-config 'summary_latencies=yes' takes true or false");
    expect(() => resolve({ metricsConfig: ['histogram_latencies=1'] })).toThrow("--metrics-config 'histogram_latencies=1' takes true or false");
    expect(() => resolve({ metricsConfig: ['summary_quantiles=1.5:0.01'] })).toThrow("--metrics-config 'summary_quantiles=1.5:0.01': '1.5:0.01' is not <quantile>:<error> with both in [0, 1]");
    expect(() => resolve({ metricsConfig: ['summary_quantiles=0.5:x'] })).toThrow("'0.5:x' is not <quantile>:<error>");
    expect(() => resolve({ metricsConfig: ['summary_quantiles='] })).toThrow("'' is not <quantile>:<error>");
    expect(() => resolve({ metricsConfig: ['summary_quantiles=0.5,0.5'] })).toThrow('quantile 0.5 is given twice');
    const many = Array.from({ length: 17 }, (_, i) => `${(i + 1) / 20}`).join(',');
    expect(() => resolve({ metricsConfig: [`summary_quantiles=${many}`] })).toThrow('names 17 quantiles; at most 16');
  });
});
