import { Command, Option } from 'commander';
import type { CommandContext } from '../../cli.js';
import { RESTRICTED_APIS } from '../../core/server/restricted-api.js';
import { DEFAULT_GRPC_KEEPALIVE } from '../../core/server/grpc/server.js';
import { DEFAULT_BUSY_POLL_US, DEFAULT_HTTP_THREADS, MAX_BUSY_POLL_US, MAX_HTTP_THREADS } from '../../core/server/server.js';
import { resolveServeOptions, type ServeFlags } from './options.js';
import { acceptIgnoredTritonFlags } from './triton-flags.js';
import { DEFAULT_METRICS_INTERVAL_MS } from '../../core/server/cpu-metrics.js';

const collect = (v: string, acc: string[]): string[] => [...acc, v];

export function registerServe(program: Command, ctx: CommandContext): void {
  const serve = program
    .command('serve [repo]')
    .description('serve a model repository over KServe v2 (HTTP, gRPC, metrics)')
    .option('--model-repository <dir>', 'the model repository (same as the [repo] argument); repeatable, as Triton: the models of every one are served (default: ./model_repository)', collect, [] as string[])
    .option('--host <address>', 'address to listen on (0.0.0.0 for containers)', '127.0.0.1')
    .option('--http-address <address>', 'address the HTTP server listens on, as Triton (default: --host)')
    .option('--grpc-address <address>', 'address the gRPC server listens on, as Triton (default: --host)')
    .option('--metrics-address <address>', 'address the metrics server listens on, as Triton (default: --host)')
    .option('--allow-http [bool]', 'serve HTTP, as Triton (default: true)')
    .option('--allow-grpc [bool]', 'serve gRPC, as Triton (default: true)')
    .option('--allow-metrics [bool]', 'serve Prometheus metrics, as Triton (default: true)')
    .option('--allow-cpu-metrics [bool]', 'export nv_cpu_utilization, nv_cpu_memory_total_bytes and nv_cpu_memory_used_bytes, as Triton (default: true)')
    .option('--metrics-interval-ms <ms>', `how often the CPU metrics are sampled, as Triton (default: ${DEFAULT_METRICS_INTERVAL_MS})`)
    .option('--id <name>', 'the server\'s name in its metadata (GET /v2, ServerMetadata), as Triton\'s --id (default: gebe)')
    .option('--model-config-name <name>', 'load each model\'s configs/<name>.pbtxt where it has one, else its config.pbtxt, as Triton (one repository, a config per device)')
    .option('--disable-auto-complete-config', 'do not run model.py\'s auto_complete_config: configs are used as written, as Triton')
    .addOption(new Option('--http-port <port>', 'HTTP port (0 = any free port)').env('GEBE_HTTP_PORT').default('8000'))
    .addOption(new Option('--grpc-port <port>', 'gRPC port (0 = any free port)').env('GEBE_GRPC_PORT').default('8001'))
    .addOption(new Option('--metrics-port <port>', 'Prometheus metrics port (0 = any free port)').env('GEBE_METRICS_PORT').default('8002'))
    .addOption(new Option('--model-control-mode <mode>', 'none: load all at start; poll: also reload changes; explicit: load via API / --load-model').choices(['none', 'poll', 'explicit']).default('none'))
    .option('--load-model <name>', 'model to load at start in explicit mode (repeatable; * = all)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--repository-poll-secs <s>', 'seconds between repository polls in poll mode', '15')
    .option('--model-load-thread-count <n>', 'models loaded at once at start, as Triton (default: 4)')
    .option('--model-load-retry-count <n>', 'times a model version that fails to load is tried again, as Triton (default: 0)')
    .option('--rate-limit <mode>', 'Triton\'s rate limiter: execution_count runs an instance\'s batch only while it holds its instance group\'s rate_limiter resources (default: off)')
    .option('--rate-limit-resource <name:count[:device]>', 'copies of a rate-limiter resource on one device or every device, as Triton (repeatable); once given, a resource it does not name has none (default: the largest need of any instance)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--exit-on-error [bool]', 'exit when any model fails to load (Triton\'s spelling; its default is true) (default: false)')
    .option('--strict-readiness [bool]', 'true (default, as Triton): /v2/health/ready and ServerReady need every model ready; false: ready once the server is up, even if models failed')
    .option('--exit-timeout-secs <s>', 'on SIGINT/SIGTERM, how long in-flight requests may take to finish', '30')
    .option('--log-verbose [level]', 'log every request, also those the native front ends answer themselves (they still answer them); as Triton, a level above 0 (bare: 1)')
    .option('--log-info [bool]', 'info lines, as Triton (default: true)')
    .option('--log-warning [bool]', 'warning lines, as Triton (default: true)')
    .option('--log-error [bool]', 'error lines, as Triton (default: true)')
    .option('--log-file <path>', 'write log lines to this file (appending) instead of stderr, as Triton')
    .addOption(new Option('--log-format <format>', 'log line format (Triton\'s default and ISO8601: text)').choices(['text', 'json', 'default', 'ISO8601']).default('text'))
    .option('--max-instances-per-model <n>', 'most instances (instance_group count, summed) a model may ask for', '128')
    .option('--http-max-body <size>', 'largest request body accepted (bytes, or with KiB/MiB/GiB)', '64MiB')
    .addOption(new Option('--http-frontend <kind>', 'native: the addon\'s HTTP server owns the port, answers infer requests natively and hands the rest to JS in process; node: node:http only').choices(['native', 'node']).default('native'))
    .option('--http-max-inflight-body <size>', 'request bodies all connections may hold together; past it requests are answered 503 (default: 1GiB or twice --http-max-body)')
    .option('--busy-poll-us <us>', `after each request and answer the native HTTP and gRPC loops poll this long (µs, 0-${MAX_BUSY_POLL_US}) before sleeping: lower latency at light load for more CPU; 0 sleeps at once`, String(DEFAULT_BUSY_POLL_US))
    .option('--http-thread-count <n>', `native HTTP loop threads on the HTTP port (1-${MAX_HTTP_THREADS}), as Triton's; the kernel spreads connections across them. Each busy-polls per --busy-poll-us, so gebe's default is ${DEFAULT_HTTP_THREADS} (Triton's: 8) for small VMs, where one loop keeps up with the models (default: ${DEFAULT_HTTP_THREADS})`)
    .option('--max-connections <n>', 'open connections, for HTTP and for gRPC each; one more is answered 503 (HTTP) or closed at once (gRPC) (default: sized from the open-file limit, which serve raises to its hard limit)')
    .option('--http-restricted-api <apis:header=value>', `HTTP APIs (${RESTRICTED_APIS.join(', ')}) that need header <header> set to <value>; else 403 (repeatable, as Triton)`, collect, [] as string[])
    .option('--http-header-forward-pattern <regex>', 'HTTP headers whose names match go to the model as string request parameters (request.parameters() in model.py), as Triton')
    .option('--grpc-header-forward-pattern <regex>', 'gRPC metadata whose keys match go to the model as string request parameters, as Triton')
    .option('--grpc-restricted-protocol <apis:key=value>', 'gRPC APIs that need metadata triton-grpc-protocol-<key> set to <value>; else UNAVAILABLE (repeatable, as Triton)', collect, [] as string[])
    .option('--trace-config <setting>', 'trace requests as Triton: triton,file=<path> and triton,log-frequency=<n> (traces per file; 0: one file), or mode=opentelemetry with opentelemetry,url=<url>, opentelemetry,resource=<key>=<value> and opentelemetry,bsp_*=<n>; level=OFF|TIMESTAMPS|TENSORS, rate=<n> (every n-th request), count=<n> (-1: no limit) (repeatable)', collect, [] as string[])
    .option('--trace-file <path>', 'Triton\'s older spelling of --trace-config triton,file=<path>')
    .option('--trace-level <level>', 'Triton\'s older spelling of --trace-config level=<level> (repeatable)', collect, [] as string[])
    .option('--trace-rate <n>', 'Triton\'s older spelling of --trace-config rate=<n>')
    .option('--trace-count <n>', 'Triton\'s older spelling of --trace-config count=<n>')
    .option('--trace-log-frequency <n>', 'Triton\'s older spelling of --trace-config triton,log-frequency=<n>')
    .option('--metrics-config <setting>', 'latency metrics, as Triton\'s: summary_latencies=true adds the nv_inference_*_summary_us summaries (quantiles over the last minute), summary_quantiles=<q>:<error>,... picks their quantiles, histogram_latencies=true adds decoupled models\' nv_inference_first_response_histogram_ms, counter_latencies=false drops the *_duration_us counters (repeatable)', collect, [] as string[])
    .option('--cache-config <setting>', 'a response cache, as Triton\'s: local,size=<bytes> (or with KiB/MiB/GiB) holds the answers of models whose config has response_cache { enable: true } (repeatable)', collect, [] as string[])
    .option('--response-cache-byte-size <bytes>', 'Triton\'s older spelling of --cache-config local,size=<bytes>')
    .option('--http-use-ssl [bool]', 'serve HTTPS (gebe\'s flag; Triton has none). The native front end steps aside: node:https serves the same routes')
    .option('--http-server-cert <file>', 'PEM certificate (chain) for --http-use-ssl')
    .option('--http-server-key <file>', 'PEM private key for --http-use-ssl')
    .option('--grpc-use-ssl [bool]', 'serve gRPC over TLS (as Triton)')
    .option('--grpc-use-ssl-mutual [bool]', 'also require client certificates signed by --grpc-root-cert (as Triton)')
    .option('--grpc-server-cert <file>', 'PEM certificate (chain) for --grpc-use-ssl')
    .option('--grpc-server-key <file>', 'PEM private key for --grpc-use-ssl')
    .option('--grpc-infer-response-compression-level <level>', 'compress inference responses for clients that accept it, as Triton: none, low (gzip), medium or high (deflate) (default: none)')
    .option('--grpc-keepalive-time <ms>', 'ping each gRPC connection this long after the last ping was answered (as Triton)', String(DEFAULT_GRPC_KEEPALIVE.timeMs))
    .option('--grpc-keepalive-timeout <ms>', 'close a gRPC connection whose ping is not answered within this long (as Triton)', String(DEFAULT_GRPC_KEEPALIVE.timeoutMs))
    .option('--grpc-keepalive-permit-without-calls [bool]', 'also ping connections with no call open, and let clients ping them (as Triton; default false)')
    .option('--grpc-http2-max-pings-without-data <n>', 'pings sent while no data went out; 0 = no limit (as Triton)', String(DEFAULT_GRPC_KEEPALIVE.maxPingsWithoutData))
    .option('--grpc-http2-min-recv-ping-interval-without-data <ms>', 'a client ping sooner than this after its last, while the server sends nothing, is a strike (as Triton)', String(DEFAULT_GRPC_KEEPALIVE.minRecvPingIntervalWithoutDataMs))
    .option('--grpc-http2-max-ping-strikes <n>', 'strikes before GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; 0 = any number (as Triton)', String(DEFAULT_GRPC_KEEPALIVE.maxPingStrikes))
    .option('--grpc-root-cert <file>', 'PEM CA certificate that signs client certificates (--grpc-use-ssl-mutual)');
  acceptIgnoredTritonFlags(serve)
    .action(async (repo: string | undefined, flags: ServeFlags) => {
      const opts = resolveServeOptions(repo, flags, ctx.io.cwd);
      const [{ processStopSignal, runServe }, { defaultServeDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      await runServe(opts, { ...(await defaultServeDeps(ctx.io)), waitForStop: processStopSignal });
    });
}
