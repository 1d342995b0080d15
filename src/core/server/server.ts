/**
 * A running gebe server: the model manager, the inference service, and the HTTP, gRPC and metrics
 * listeners, started together and stopped together (gracefully).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GrpcFrontend, type GrpcKeepalive, type ResponseCompressionLevel } from './grpc/server.js';
import { NativeHttpFrontend, type HttpListener } from './http/native-frontend.js';
import { publishReadyModels } from './http/publish-models.js';
import { HttpFrontend, type HttpOptions } from './http/server.js';
import { InferenceService } from './inference-service.js';
import { TraceControl, type TraceMode, type TraceSetting } from './trace-settings.js';
import { TraceWriter } from './trace-writer.js';
import { DEFAULT_OTEL_OPTIONS, OtelExporter, type OtelOptions } from './otel-exporter.js';
import { CpuMetrics } from './cpu-metrics.js';
import { nativeTrace } from '../executor/trace-addon.js';
import type { Logger } from './logger.js';
import { ServerMetrics } from './metrics.js';
import type { ModelManager } from './model-manager.js';
import type { Restrictions } from './restricted-api.js';

export interface ServerOptions {
  host: string;
  /** Each listener's own address (Triton's --http-address, ...); absent: `host`. */
  httpHost?: string;
  grpcHost?: string;
  metricsHost?: string;
  /** The server's name in its metadata (Triton's --id); absent: gebe. */
  serverId?: string;
  /** Triton's CPU metrics, sampled this often (ms); absent: none. */
  cpuMetricsIntervalMs?: number;
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  /** Disable one listener by leaving it out. */
  enableHttp?: boolean;
  enableGrpc?: boolean;
  enableMetrics?: boolean;
  maxBodyBytes: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  timeoutCheckIntervalMs?: number;
  /**
   * native (default): the addon's HTTP server owns the port, answers infer requests of published
   * models itself and hands the rest to JS in process. node: node:http on the port.
   */
  httpFrontend?: 'native' | 'node';
  /** --busy-poll-us: how long the native front ends' loops poll before sleeping (default DEFAULT_BUSY_POLL_US). */
  busyPollUs?: number;
  /** Triton's --http-thread-count: the native HTTP front end's loop threads (default DEFAULT_HTTP_THREADS). */
  httpThreads?: number;
  /** --grpc-keepalive-* and --grpc-http2-* (default DEFAULT_GRPC_KEEPALIVE). */
  grpcKeepalive?: GrpcKeepalive;
  /** --grpc-infer-response-compression-level (default none). */
  grpcResponseCompression?: ResponseCompressionLevel;
  /** All request bodies being received together (default from limits.ts). */
  maxInflightBodyBytes?: number;
  /** Open HTTP connections (each front end); one more is answered 503 and closed. */
  maxConnections?: number;
  httpRestrictions?: Restrictions;
  grpcRestrictions?: Restrictions;
  /** --http-header-forward-pattern, --grpc-header-forward-pattern (server/header-forwarding.ts). */
  httpHeaderForwardPattern?: RegExp;
  grpcHeaderForwardPattern?: RegExp;
  /** Triton's --trace-config: the trace file ('' for none: tracing cannot be turned on) and the global setting at start. */
  trace?: { mode?: TraceMode; file: string; setting: TraceSetting; otel?: OtelOptions };
  /** Triton's --strict-readiness (default true): server readiness needs every model READY. */
  strictReadiness?: boolean;
  /** HTTPS: served by node:https with the same routes (the native front end steps aside). */
  httpTls?: { cert: Buffer; key: Buffer };
  grpcTls?: { cert: Buffer; key: Buffer; rootCert?: Buffer; mutual: boolean };
}

/**
 * After taking a request or writing answers, the native HTTP and gRPC loops poll their sockets
 * and answers this long (µs) before they sleep. A sleeping thread on a small VM takes tens of µs
 * to wake; on 2 cores with the MNIST template (`npm run bench:serve`) 200 µs raised served
 * throughput at concurrency 1 and 4 by a quarter or more, at the price of up to 2 × this much CPU
 * per request while load is light. 0 sleeps at once; at most MAX_BUSY_POLL_US.
 */
export const DEFAULT_BUSY_POLL_US = 200;
export const MAX_BUSY_POLL_US = 10_000;

/**
 * The native HTTP front end's loop threads (Triton's --http-thread-count, whose default is 8), each
 * listening on the HTTP port (SO_REUSEPORT: the kernel spreads connections across them). One by
 * default: gebe runs on small VMs (2 cores), where each more loop busy-polls (--busy-poll-us) on a
 * core the model instances need, and one loop keeps up with them there. At most MAX_HTTP_THREADS
 * (native/src/http/http_shared.h's kMaxHttpLoops is the same bound).
 */
export const DEFAULT_HTTP_THREADS = 1;
export const MAX_HTTP_THREADS = 64;

export interface ServerPorts {
  http?: number;
  grpc?: number;
  metrics?: number;
}

export class GebeServer {
  readonly service: InferenceService;
  readonly metrics: ServerMetrics;
  readonly http?: HttpListener;
  private readonly grpc?: GrpcFrontend;
  private unpublish?: () => void;
  private unpublishGrpc?: () => void;
  private metricsServer?: http.Server;
  private traceWriter?: TraceWriter;
  private otelExporter?: OtelExporter;
  private cpuMetrics?: CpuMetrics;
  ports: ServerPorts = {};

  constructor(readonly models: ModelManager, private readonly options: ServerOptions, private readonly log: Logger) {
    this.metrics = new ServerMetrics(() => models.readyModels(), models.responseCache, models.latencyMetrics);
    this.service = new InferenceService(models, this.metrics, options.strictReadiness ?? true, log.control);
    if (options.serverId !== undefined) this.service.serverName = options.serverId;
    if (options.enableMetrics !== false && options.cpuMetricsIntervalMs !== undefined) this.cpuMetrics = new CpuMetrics(this.metrics.registry, options.cpuMetricsIntervalMs);
    if (options.trace) {
      const mode = options.trace.mode ?? 'triton';
      const control = new TraceControl(options.trace.file, options.trace.setting, (name) => void models.versions(name), nativeTrace(), mode);
      this.service.traceControl = control;
      if (mode === 'opentelemetry') {
        const exporter = new OtelExporter(options.trace.otel ?? DEFAULT_OTEL_OPTIONS, nativeTrace(), log, this.service.serverMetadata().version);
        control.beforeChange = () => exporter.drain();
        this.otelExporter = exporter;
      } else if (options.trace.file) {
        const writer = new TraceWriter(options.trace.file, () => control.logFrequency, nativeTrace(), log);
        control.beforeChange = () => writer.drain();
        this.traceWriter = writer;
      }
    }
    if (options.enableHttp !== false) {
      const httpOptions: HttpOptions = {
        host: options.httpHost ?? options.host, port: options.httpPort, maxBodyBytes: options.maxBodyBytes,
        headersTimeoutMs: options.headersTimeoutMs, requestTimeoutMs: options.requestTimeoutMs,
        keepAliveTimeoutMs: options.keepAliveTimeoutMs, timeoutCheckIntervalMs: options.timeoutCheckIntervalMs,
        maxInflightBodyBytes: options.maxInflightBodyBytes, maxConnections: options.maxConnections,
        restrictions: options.httpRestrictions, tls: options.httpTls, busyPollUs: options.busyPollUs ?? DEFAULT_BUSY_POLL_US,
        headerForwardPattern: options.httpHeaderForwardPattern, threads: options.httpThreads ?? DEFAULT_HTTP_THREADS,
      };
      if (options.httpFrontend === 'node' || options.httpTls) {
        this.http = new HttpFrontend(this.service, httpOptions, log);
      } else {
        const native = new NativeHttpFrontend(this.service, httpOptions, log);
        this.http = native;
        this.metrics.addFailureSource(() => native.takeFailures());
        // With a restricted inference API every request has its header checked in JS: nothing is published.
        if (!options.httpRestrictions?.has('inference')) this.unpublish = publishReadyModels(models, native);
      }
    }
    if (options.enableGrpc !== false) {
      this.grpc = new GrpcFrontend(this.service, {
        host: options.grpcHost ?? options.host, port: options.grpcPort, maxMessageBytes: options.maxBodyBytes, maxConnections: options.maxConnections,
        maxInflightBytes: options.maxInflightBodyBytes, restrictions: options.grpcRestrictions, tls: options.grpcTls,
        busyPollUs: options.busyPollUs ?? DEFAULT_BUSY_POLL_US, keepalive: options.grpcKeepalive, headerForwardPattern: options.grpcHeaderForwardPattern,
        responseCompression: options.grpcResponseCompression,
      }, log);
      const grpc = this.grpc;
      this.metrics.addFailureSource(() => grpc.takeFailures());
      if (!options.grpcTls) this.unpublishGrpc = publishReadyModels(models, grpc);
    }
  }

  /** Opens the listeners; resolves to the ports they got (useful with port 0). */
  async listen(): Promise<ServerPorts> {
    if (this.http) this.ports.http = await this.http.listen();
    if (this.grpc) this.ports.grpc = await this.grpc.listen();
    if (this.options.enableMetrics !== false) this.ports.metrics = await this.listenMetrics();
    return this.ports;
  }

  private listenMetrics(): Promise<number> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: `no endpoint ${req.method} ${path}; metrics are at GET /metrics` }));
        return;
      }
      this.metrics.text().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': this.metrics.contentType });
          res.end(text);
        },
        (err) => {
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: `metrics failed: ${(err as Error).message}` }));
        },
      );
    });
    this.metricsServer = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.metricsPort, this.options.metricsHost ?? this.options.host, () => resolve((server.address() as AddressInfo).port));
    });
  }

  /**
   * Graceful stop: not ready any more, stop accepting, let accepted requests finish (up to
   * `timeoutMs`), then unload the models and close the metrics listener.
   */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.service.draining = true;
    this.log.info('shutting down: no new connections; waiting for in-flight requests', { timeout_s: timeoutMs / 1000 });
    await Promise.all([this.http?.close(timeoutMs), this.grpc?.close(timeoutMs)]);
    await this.models.stop();
    this.unpublish?.();
    this.unpublishGrpc?.();
    // Every request is answered: the last traces are written and the file completed (or sent).
    this.service.traceControl?.close();
    this.traceWriter?.close();
    await this.otelExporter?.close();
    this.cpuMetrics?.stop();
    await new Promise<void>((resolve) => (this.metricsServer ? this.metricsServer.close(() => resolve()) : resolve()));
    this.metricsServer?.closeAllConnections();
    this.log.info('server stopped');
  }
}
