import { DEFAULT_OTEL_OPTIONS } from '../../../src/core/server/otel-exporter.js';
import { parseTraceConfig } from '../../../src/commands/serve/trace-config.js';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parseSize, resolveServeOptions, type ServeFlags } from '../../../src/commands/serve/options.js';
import { DEFAULT_GRPC_KEEPALIVE } from '../../../src/core/server/grpc/server.js';

const defaults: ServeFlags = {
  host: '127.0.0.1', httpPort: '8000', grpcPort: '8001', metricsPort: '8002', modelControlMode: 'none', loadModel: [],
  repositoryPollSecs: '15', exitOnError: false, exitTimeoutSecs: '30', logVerbose: false, logFormat: 'text', httpMaxBody: '64MiB',
};

describe('serve options', () => {
  it('defaults to ./model_repository and the Triton ports', () => {
    const o = resolveServeOptions(undefined, defaults, '/work');
    expect(o).toMatchObject({ repository: '/work/model_repository', host: '127.0.0.1', httpPort: 8000, grpcPort: 8001, metricsPort: 8002, maxBodyBytes: 64 * 1024 * 1024, exitTimeoutSeconds: 30 });
  });

  it('takes --max-instances-per-model (default 128)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').maxInstancesPerModel).toBe(128);
    expect(resolveServeOptions(undefined, { ...defaults, maxInstancesPerModel: '512' }, '/w').maxInstancesPerModel).toBe(512);
  });

  it('takes --grpc-infer-response-compression-level (default none, as Triton)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').grpcResponseCompression).toBe('none');
    expect(resolveServeOptions(undefined, { ...defaults, grpcInferResponseCompressionLevel: 'HIGH' }, '/w').grpcResponseCompression).toBe('high');
    expect(() => resolveServeOptions(undefined, { ...defaults, grpcInferResponseCompressionLevel: 'max' }, '/w'))
      .toThrow("--grpc-infer-response-compression-level must be one of none, low, medium, high, got 'max'");
  });

  it("takes Triton's --rate-limit and --rate-limit-resource name:count[:device]", () => {
    const opts = (extra: object) => resolveServeOptions(undefined, { ...defaults, ...extra }, '/w');
    expect(opts({}).rateLimit).toBeUndefined();
    expect(opts({ rateLimit: 'off' }).rateLimit).toBeUndefined();
    expect(opts({ rateLimit: 'execution_count', rateLimitResource: ['R1:10', 'R2:5:0', 'R2:8:1'] }).rateLimit).toEqual({
      resources: [{ name: 'R1', count: 10, device: -1 }, { name: 'R2', count: 5, device: 0 }, { name: 'R2', count: 8, device: 1 }],
    });
    // Counts while the limiter is off change nothing, as in Triton: serve names them at start.
    const off = opts({ rateLimitResource: ['R1:10'] });
    expect([off.rateLimit, off.ignoredTritonFlags]).toEqual([undefined, ['--rate-limit-resource (the rate limiter is off: add --rate-limit execution_count)']]);
    expect(() => opts({ rateLimit: 'on' })).toThrow("--rate-limit must be off or execution_count, got 'on'");
    for (const bad of ['R1', 'R1:', ':4', 'R1:-1', 'R1:4:x', 'R1:99999999999']) {
      expect(() => opts({ rateLimit: 'execution_count', rateLimitResource: [bad] })).toThrow(`--rate-limit-resource must be <name>:<count> or <name>:<count>:<device>, with whole numbers, got '${bad}'`);
    }
  });

  it('takes --model-load-retry-count (default 0, at most 100)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').loadRetries).toBe(0);
    expect(resolveServeOptions(undefined, { ...defaults, modelLoadRetryCount: '3' }, '/w').loadRetries).toBe(3);
    expect(() => resolveServeOptions(undefined, { ...defaults, modelLoadRetryCount: '101' }, '/w')).toThrow("--model-load-retry-count must be a whole number from 0 to 100, got '101'");
    expect(() => resolveServeOptions(undefined, { ...defaults, modelLoadRetryCount: '-1' }, '/w')).toThrow("--model-load-retry-count must be a whole number from 0 to 100, got '-1'");
  });

  it('takes --model-load-thread-count (default 4, as Triton)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').loadThreads).toBe(4);
    expect(resolveServeOptions(undefined, { ...defaults, modelLoadThreadCount: '1' }, '/w').loadThreads).toBe(1);
    expect(() => resolveServeOptions(undefined, { ...defaults, modelLoadThreadCount: '0' }, '/w')).toThrow(/--model-load-thread-count must be a whole number from 1/);
  });

  it('takes --strict-readiness [bool] (default true, as Triton)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').strictReadiness).toBe(true);
    expect(resolveServeOptions(undefined, { ...defaults, strictReadiness: true }, '/w').strictReadiness).toBe(true);
    expect(resolveServeOptions(undefined, { ...defaults, strictReadiness: 'false' }, '/w').strictReadiness).toBe(false);
    expect(() => resolveServeOptions(undefined, { ...defaults, strictReadiness: 'maybe' }, '/w')).toThrow(/--strict-readiness takes true or false/);
  });

  it('takes Triton\'s logging flags: --log-verbose [level], --log-info/--log-warning/--log-error [bool], --log-format default|ISO8601', () => {
    const log = (flags: Partial<ServeFlags>) => {
      const o = resolveServeOptions(undefined, { ...defaults, ...flags }, '/w');
      return [o.logVerboseLevel, o.logInfo, o.logWarning, o.logError, o.logFormat];
    };
    expect(log({})).toEqual([0, true, true, true, 'text']);
    expect(log({ logVerbose: true, logInfo: 'false', logFormat: 'json' })).toEqual([1, false, true, true, 'json']);
    expect(log({ logVerbose: '2', logWarning: false, logError: '0', logFormat: 'ISO8601' })).toEqual([2, true, false, false, 'text']);
    expect(log({ logVerbose: '0', logFormat: 'default' })).toEqual([0, true, true, true, 'text']);
    expect(() => log({ logVerbose: 'high' })).toThrow("--log-verbose takes a level (0, 1, ...), got 'high'");
    expect(() => log({ logError: 'maybe' })).toThrow('--log-error takes true or false');
    expect(() => log({ logFormat: 'toString' })).toThrow('--log-format must be text or json');
  });

  it('takes Triton\'s --http-header-forward-pattern and --grpc-header-forward-pattern as regular expressions', () => {
    const o = resolveServeOptions(undefined, { ...defaults, httpHeaderForwardPattern: '^x-', grpcHeaderForwardPattern: 'tenant' }, '/w');
    expect([o.httpHeaderForwardPattern?.source, o.grpcHeaderForwardPattern?.source]).toEqual(['^x-', 'tenant']);
    expect(resolveServeOptions(undefined, defaults, '/w').httpHeaderForwardPattern).toBeUndefined();
    expect(() => resolveServeOptions(undefined, { ...defaults, httpHeaderForwardPattern: '(' }, '/w')).toThrow(/--http-header-forward-pattern '\(' is not a regular expression/);
  });

  it('takes Triton\'s --trace-config: the file\'s settings after triton,, the global ones alone, each checked as the trace API checks it', () => {
    const trace = (specs: string[]) => resolveServeOptions(undefined, { ...defaults, traceConfig: specs }, '/tmp').trace!;
    expect(trace([])).toEqual({ mode: 'triton', file: '', setting: { timestamps: false, rate: 1000, count: -1, logFrequency: 0 }, otel: DEFAULT_OTEL_OPTIONS });
    expect(trace(['triton,file=t.json', 'triton,log-frequency=50', 'rate=100', 'level=TIMESTAMPS', 'count=10', 'mode=triton'])).toMatchObject({
      mode: 'triton', file: '/tmp/t.json', setting: { timestamps: true, tensors: false, rate: 100, count: 10, logFrequency: 50 },
    });
    // Levels add up, as Triton's repeated --trace-config level=.
    expect(trace(['triton,file=t.json', 'level=OFF', 'level=TIMESTAMPS']).setting.timestamps).toBe(true);
    expect(() => trace(['level=TIMESTAMPS'])).toThrow('--trace-config level=TIMESTAMPS needs a file to write the traces to');
    expect(() => trace(['rate=0'])).toThrow("--trace-config 'rate=0': trace setting 'trace_rate' \"0\" must be a whole number from 1 to 4294967295");
    expect(() => trace(['level=TENSORS'])).toThrow('--trace-config level=TENSORS needs a file to write the traces to');
    expect(trace(['triton,file=t.json', 'level=TENSORS']).setting).toMatchObject({ timestamps: false, tensors: true });
    expect(() => trace(['sampling=1'])).toThrow("--trace-config: unknown setting 'sampling'");
    expect(() => trace(['rate'])).toThrow("--trace-config must be [triton,|opentelemetry,]<setting>=<value>, got 'rate'");
    expect(() => trace(['triton,file=/no/such/dir/t.json'])).toThrow('its directory does not exist');
    expect(() => trace(['triton,file=/tmp'])).toThrow('triton,file=/tmp: that is a directory');
    // Triton's older flags, as blog posts spell them.
    const older = resolveServeOptions(undefined, { ...defaults, traceFile: 'old.json', traceLevel: ['TIMESTAMPS'], traceRate: '10', traceCount: '5', traceLogFrequency: '2' }, '/tmp').trace;
    expect(older).toMatchObject({ file: '/tmp/old.json', setting: { timestamps: true, tensors: false, rate: 10, count: 5, logFrequency: 2 } });
    expect(() => resolveServeOptions(undefined, { ...defaults, traceRate: '0' }, '/tmp')).toThrow("--trace-config 'rate=0'");
  });

  it('takes Triton\'s --trace-config mode=opentelemetry and its exporter\'s settings, checked', () => {
    const trace = (specs: string[]) => resolveServeOptions(undefined, { ...defaults, traceConfig: specs }, '/tmp').trace!;
    // Any order: the mode decides what rate may be (0: only requests that propagate their context).
    const o = trace(['level=TIMESTAMPS', 'rate=0', 'mode=opentelemetry', 'opentelemetry,url=collector:4318/v1/traces', 'opentelemetry,resource=service.name=triton',
      'opentelemetry,resource=deployment=prod=eu', 'opentelemetry,bsp_max_queue_size=100', 'opentelemetry,bsp_schedule_delay=250', 'opentelemetry,bsp_max_export_batch_size=50']);
    expect(o).toEqual({
      mode: 'opentelemetry', file: '', setting: { timestamps: true, tensors: false, rate: 0, count: -1, logFrequency: 0 },
      otel: { url: 'http://collector:4318/v1/traces', resource: { 'service.name': 'triton', deployment: 'prod=eu' }, maxQueueSize: 100, scheduleDelayMs: 250, maxExportBatchSize: 50, exportTimeoutMs: 10_000 },
    });
    expect(trace(['mode=opentelemetry']).otel.url).toBe('http://localhost:4318/v1/traces');
    expect(() => trace(['mode=zipkin'])).toThrow("--trace-config 'mode=zipkin': the modes are triton and opentelemetry");
    expect(() => trace(['mode=opentelemetry', 'triton,file=t.json'])).toThrow('triton,file= writes Triton\'s trace files, which mode=opentelemetry does not');
    expect(() => trace(['opentelemetry,url=ftp://x/y'])).toThrow('the receiver is reached over http or https, not ftp:');
    expect(() => trace(['opentelemetry,url=http://[x'])).toThrow("'http://[x' is not a URL");
    expect(() => trace(['opentelemetry,resource=novalue'])).toThrow('resource must be <key>=<value>');
    expect(() => trace(['opentelemetry,bsp_max_queue_size=0'])).toThrow('bsp_max_queue_size must be a whole number from 1 to 1048576');
    expect(() => trace(['opentelemetry,bsp_max_export_batch_size=4096'])).toThrow('bsp_max_export_batch_size=4096 is more than bsp_max_queue_size=2048');
    expect(() => trace(['opentelemetry,headers=x'])).toThrow("unknown setting 'opentelemetry,headers'");
  });

  it('takes OpenTelemetry\'s environment variables as the exporter\'s defaults, which --trace-config overrides', () => {
    const env = {
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod, team=ml%2Cinfra', OTEL_SERVICE_NAME: 'gebe-eu',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_BSP_SCHEDULE_DELAY: '1000', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '256',
    };
    expect(parseTraceConfig(['mode=opentelemetry'], '/tmp', env).otel).toEqual({
      ...DEFAULT_OTEL_OPTIONS, resource: { 'service.name': 'gebe-eu', 'deployment.environment': 'prod', team: 'ml,infra' },
      maxQueueSize: 4096, scheduleDelayMs: 1000, maxExportBatchSize: 256,
    });
    const flags = parseTraceConfig(['mode=opentelemetry', 'opentelemetry,resource=service.name=flag', 'opentelemetry,bsp_schedule_delay=50'], '/tmp', env).otel;
    expect([flags.resource['service.name'], flags.scheduleDelayMs, flags.maxQueueSize]).toEqual(['flag', 50, 4096]);
    // In mode triton they are not read: a stray one stops nothing.
    expect(parseTraceConfig([], '/tmp', { OTEL_BSP_SCHEDULE_DELAY: 'soon' }).otel).toEqual(DEFAULT_OTEL_OPTIONS);
    const otelMode = (env: Record<string, string>) => parseTraceConfig(['mode=opentelemetry'], '/tmp', env);
    expect(() => otelMode({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow('OTEL_BSP_SCHEDULE_DELAY must be a whole number from 1 to 3600000');
    expect(() => otelMode({ OTEL_RESOURCE_ATTRIBUTES: 'novalue' })).toThrow("OTEL_RESOURCE_ATTRIBUTES must be <key>=<value>,... (values percent-encoded), got 'novalue'");
    expect(() => otelMode({ OTEL_RESOURCE_ATTRIBUTES: 'k=%E0%A4%A' })).toThrow('OTEL_RESOURCE_ATTRIBUTES must be');
    expect(() => otelMode({ OTEL_BSP_MAX_QUEUE_SIZE: '100' })).toThrow('bsp_max_export_batch_size=512 is more than bsp_max_queue_size=100 (flags or OTEL_BSP_* variables)');
  });

  it('takes Triton\'s --cache-config local,size=<bytes> and --response-cache-byte-size (left out: no cache)', () => {
    const cache = (flags: Partial<ServeFlags>) => resolveServeOptions(undefined, { ...defaults, ...flags }, '/tmp').responseCacheBytes;
    expect(cache({})).toBeUndefined();
    expect(cache({ cacheConfig: ['local,size=1048576'] })).toBe(1048576);
    expect(cache({ cacheConfig: ['local,size=64MiB'] })).toBe(64 << 20);
    expect(cache({ responseCacheByteSize: '4096' })).toBe(4096);
    expect(cache({ responseCacheByteSize: '0' })).toBeUndefined();  // Triton's default: no cache
    expect(() => cache({ responseCacheByteSize: 'abc' })).toThrow("--response-cache-byte-size must be a size such as 67108864, 512KiB or 64MiB, got 'abc'");
    expect(() => cache({ cacheConfig: ['redis,host=localhost'] })).toThrow("gebe has Triton's local cache only (in the server's memory), not 'redis'");
    expect(() => cache({ cacheConfig: ['local,limit=5'] })).toThrow('the local cache has one setting, size');
    expect(() => cache({ cacheConfig: ['size=5'] })).toThrow("--cache-config must be <cache>,<setting>=<value>, got 'size=5'");
    expect(() => cache({ cacheConfig: ['local,size=0'] })).toThrow('--cache-config local,size must be a size such as');
    expect(() => cache({ cacheConfig: ['local,size=100000GiB'] })).toThrow("a response cache of 107374182400000 bytes is more than this machine's memory");
  });

  it('takes Triton\'s --log-file, refusing a path it could never write', () => {
    expect(resolveServeOptions(undefined, { ...defaults, logFile: 'serve.log' }, '/tmp').logFile).toBe('/tmp/serve.log');
    expect(resolveServeOptions(undefined, defaults, '/tmp').logFile).toBeUndefined();
    expect(() => resolveServeOptions(undefined, { ...defaults, logFile: '' }, '/tmp')).toThrow('--log-file needs a path');
    expect(() => resolveServeOptions(undefined, { ...defaults, logFile: '/no/such/dir/g.log' }, '/tmp')).toThrow('--log-file /no/such/dir/g.log: its directory does not exist');
    expect(() => resolveServeOptions(undefined, { ...defaults, logFile: '/tmp' }, '/tmp')).toThrow('--log-file /tmp: that is a directory');
  });

  it('accepts --model-repository as an alias of the argument', () => {
    expect(resolveServeOptions(undefined, { ...defaults, modelRepository: 'repo' }, '/w').repository).toBe('/w/repo');
    expect(resolveServeOptions('repo', { ...defaults, modelRepository: './repo' }, '/w').repository).toBe('/w/repo');
    expect(() => resolveServeOptions('a', { ...defaults, modelRepository: 'b' }, '/w')).toThrow(/two repositories given/);
  });

  it('takes --model-repository more than once, as Triton (the argument may name one of them)', () => {
    const o = resolveServeOptions(undefined, { ...defaults, modelRepository: ['a', 'b', './a'] }, '/w');
    expect([o.repository, o.moreRepositories]).toEqual(['/w/a', ['/w/b']]);
    expect(resolveServeOptions('b', { ...defaults, modelRepository: ['a', 'b'] }, '/w').moreRepositories).toEqual(['/w/b']);
    expect(resolveServeOptions(undefined, { ...defaults, modelRepository: [] }, '/w')).toMatchObject({ repository: '/w/model_repository' });
    expect(resolveServeOptions(undefined, { ...defaults, modelRepository: [] }, '/w').moreRepositories).toBeUndefined();
    expect(() => resolveServeOptions('c', { ...defaults, modelRepository: ['a', 'b'] }, '/w')).toThrow(/two repositories given: 'c' and --model-repository 'a'/);
  });

  it('refuses bad ports, modes, sizes and combinations with a UsageError naming the flag', () => {
    const bad: Array<[Partial<ServeFlags>, RegExp]> = [
      [{ httpPort: '70000' }, /--http-port must be a port number/],
      [{ grpcPort: 'x' }, /--grpc-port/],
      [{ httpPort: '9000', metricsPort: '9000' }, /--http-port and --metrics-port are both 9000/],
      [{ modelControlMode: 'auto' }, /--model-control-mode must be none, poll or explicit/],
      [{ loadModel: ['m'] }, /--load-model only applies with --model-control-mode explicit/],
      [{ logFormat: 'xml' }, /--log-format/],
      [{ exitTimeoutSecs: '-1' }, /--exit-timeout-secs/],
      [{ maxInstancesPerModel: '0' }, /--max-instances-per-model must be a whole number from 1 to 4096/],
      [{ maxInstancesPerModel: '5000' }, /--max-instances-per-model/],
      [{ httpMaxBody: '12 parsecs' }, /--http-max-body must be a size/],
      [{ httpFrontend: 'nginx' }, /--http-frontend must be native or node, got 'nginx'/],
      [{ busyPollUs: '-1' }, /--busy-poll-us must be a whole number of microseconds from 0 to 10000, got '-1'/],
      [{ busyPollUs: '10001' }, /--busy-poll-us must be a whole number of microseconds from 0 to 10000/],
      [{ busyPollUs: '1.5' }, /--busy-poll-us/],
      [{ grpcKeepaliveTime: '0' }, /--grpc-keepalive-time must be a whole number from 1 to 2147483647, got '0'/],
      [{ grpcKeepaliveTimeout: '2147483648' }, /--grpc-keepalive-timeout must be a whole number/],
      [{ grpcHttp2MaxPingStrikes: '-1' }, /--grpc-http2-max-ping-strikes must be a whole number from 0/],
      [{ grpcKeepalivePermitWithoutCalls: 'often' }, /--grpc-keepalive-permit-without-calls takes true or false/],
    ];
    for (const [flags, message] of bad) {
      const run = () => resolveServeOptions(undefined, { ...defaults, ...flags }, '/w');
      expect(run).toThrow(UsageError);
      expect(run).toThrow(message);
    }
    expect(resolveServeOptions(undefined, { ...defaults, httpPort: '0', grpcPort: '0', metricsPort: '0' }, '/w').httpPort).toBe(0);
  });

  it('serves HTTP with the native front end unless --http-frontend node', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').httpFrontend).toBe('native');
    expect(resolveServeOptions(undefined, { ...defaults, httpFrontend: 'node' }, '/w').httpFrontend).toBe('node');
  });

  it('takes --busy-poll-us (left out: the server\'s default)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').busyPollUs).toBeUndefined();
    expect(resolveServeOptions(undefined, { ...defaults, busyPollUs: '0' }, '/w').busyPollUs).toBe(0);
    expect(resolveServeOptions(undefined, { ...defaults, busyPollUs: '10000' }, '/w').busyPollUs).toBe(10000);
  });

  it('takes Triton\'s gRPC keepalive flags (defaults: gRPC core\'s)', () => {
    expect(resolveServeOptions(undefined, defaults, '/w').grpcKeepalive).toEqual(DEFAULT_GRPC_KEEPALIVE);
    const o = resolveServeOptions(undefined, {
      ...defaults, grpcKeepaliveTime: '10000', grpcKeepaliveTimeout: '500', grpcKeepalivePermitWithoutCalls: true,
      grpcHttp2MaxPingsWithoutData: '0', grpcHttp2MinRecvPingIntervalWithoutData: '1000', grpcHttp2MaxPingStrikes: '0',
    }, '/w');
    expect(o.grpcKeepalive).toEqual({ timeMs: 10000, timeoutMs: 500, permitWithoutCalls: true, maxPingsWithoutData: 0, minRecvPingIntervalWithoutDataMs: 1000, maxPingStrikes: 0 });
  });

  it('parses sizes with units', () => {
    expect(parseSize('1048576', 'x')).toBe(1048576);
    expect(parseSize('512KiB', 'x')).toBe(512 * 1024);
    expect(parseSize('1.5M', 'x')).toBe(1.5 * 1024 * 1024);
    expect(parseSize('2GiB', 'x')).toBe(2 * 1024 ** 3);
  });
});

describe('serve hardening flags', () => {
  it('parses limits, restricted APIs (as Triton) and TLS files', () => {
    const o = resolveServeOptions(undefined, {
      ...defaults, httpMaxInflightBody: '2GiB', maxConnections: '500',
      httpRestrictedApi: ['model-repository,statistics:Admin-Key=s=x'], grpcRestrictedProtocol: ['inference:infer-key=go'],
      httpUseSsl: true, httpServerCert: 'c.pem', httpServerKey: 'k.pem',
      grpcUseSsl: 'true', grpcUseSslMutual: 'true', grpcServerCert: 'c.pem', grpcServerKey: 'k.pem', grpcRootCert: 'ca.pem',
    }, '/w');
    expect(o.maxInflightBodyBytes).toBe(2 * 1024 ** 3);
    expect(o.maxConnections).toBe(500);
    expect(o.httpRestrictions?.get('statistics')).toEqual({ key: 'admin-key', value: 's=x' });
    expect(o.grpcRestrictions?.get('inference')).toEqual({ key: 'infer-key', value: 'go' });
    expect(o.httpTls).toEqual({ cert: '/w/c.pem', key: '/w/k.pem' });
    expect(o.grpcTls).toEqual({ cert: '/w/c.pem', key: '/w/k.pem', rootCert: '/w/ca.pem', mutual: true });
  });

  it('refuses bad hardening flags with a UsageError naming the flag', () => {
    const bad: Array<[Partial<ServeFlags>, RegExp]> = [
      [{ httpRestrictedApi: ['inference'] }, /--http-restricted-api must be <api list>:<header>=<value>/],
      [{ httpRestrictedApi: ['infer:k=v'] }, /unknown API 'infer'/],
      [{ grpcRestrictedProtocol: ['health:a=1', 'health:b=2'] }, /API 'health' is in more than one group/],
      [{ maxConnections: '0' }, /--max-connections must be a whole number >= 1/],
      [{ httpMaxInflightBody: 'lots' }, /--http-max-inflight-body must be a size/],
      [{ httpUseSsl: true }, /--http-use-ssl needs --http-server-cert and --http-server-key/],
      [{ httpServerCert: 'c.pem' }, /only apply with --http-use-ssl/],
      [{ grpcUseSslMutual: true, grpcServerCert: 'c', grpcServerKey: 'k' }, /--grpc-use-ssl-mutual needs --grpc-root-cert/],
      [{ grpcUseSsl: 'maybe' }, /--grpc-use-ssl takes true or false/],
    ];
    for (const [flags, message] of bad) {
      const run = () => resolveServeOptions(undefined, { ...defaults, ...flags }, '/w');
      expect(run).toThrow(UsageError);
      expect(run).toThrow(message);
    }
  });
});
