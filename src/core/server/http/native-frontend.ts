/**
 * The native HTTP front end: a libuv server in the addon owns the port, applies the limits,
 * timeouts and drain, and answers infer requests of published models without JS; every other
 * request it hands, whole, to the one JS handler (handler.ts) in this process and writes the
 * answer that comes back. There is no second HTTP server.
 */
import type { InferenceService } from '../inference-service.js';
import type { Logger } from '../logger.js';
import type { PublishedVersion } from './publish-models.js';
import { defaultMaxInflightBodyBytes, maxUnsentAnswerBytes, nativeHttpWording } from '../limits.js';
import { createHttpHandler, headerLines, headerRecord, type HttpHandler } from './handler.js';
import { EMPTY } from './respond.js';
import { BodyPart, createNativeHttpServer, type NativeFailureCount, type NativeHttpServer } from './native-http-addon.js';
import type { HttpOptions } from './server.js';
import { looksLikeInfer } from './routes.js';
import { cancellationError } from '../../executor/cancellation.js';
import type { FrontEndArrival } from '../../executor/types.js';
import { logNativeRequests } from '../native-request-log.js';

/** What GebeServer needs of either front end. */
export interface HttpListener {
  listen(): Promise<number>;
  close(timeoutMs: number): Promise<void>;
  readonly accepted: number;
  readonly answered: number;
  readonly inFlightCount: number;
}

type Publication = [versions: PublishedVersion[], defaultVersion: string];

export class NativeHttpFrontend implements HttpListener {
  private native?: NativeHttpServer;
  private readonly handler: HttpHandler;
  /** What is published, kept so that what was published before listen() reaches the server. */
  private readonly published = new Map<string, Publication>();
  /** Infer requests JS holds, by token, with the controller that aborts them when their client goes. */
  private readonly held = new Map<number, AbortController>();

  /** Logs what the native route answered once the server has closed (a no-op unless verbose). */
  private stopRequestLog: () => void = () => undefined;

  constructor(service: InferenceService, private readonly options: HttpOptions, private readonly log: Logger) {
    this.handler = createHttpHandler(service, { maxBodyBytes: options.maxBodyBytes, restrictions: options.restrictions, headerForwardPattern: options.headerForwardPattern }, log);
  }

  async listen(): Promise<number> {
    const maxInflight = this.options.maxInflightBodyBytes ?? defaultMaxInflightBodyBytes(this.options.maxBodyBytes);
    const maxConnections = this.options.maxConnections ?? 1 << 30;
    const native = createNativeHttpServer({
      host: this.options.host,
      port: this.options.port,
      maxBodyBytes: this.options.maxBodyBytes,
      maxInflightBodyBytes: maxInflight,
      maxConnections,
      maxUnsentBytes: maxUnsentAnswerBytes(this.options.maxBodyBytes),
      ...nativeHttpWording(this.options.maxBodyBytes, maxInflight, maxConnections),
      headersTimeoutMs: this.options.headersTimeoutMs,
      requestTimeoutMs: this.options.requestTimeoutMs,
      keepAliveTimeoutMs: this.options.keepAliveTimeoutMs,
      busyPollUs: this.options.busyPollUs,
      threads: this.options.threads,
    }, (token, method, url, headers, body, http10, received) => {
      if (method === undefined) {
        // The connection of a request JS holds went away: an infer request still queued is dropped.
        this.held.get(token)?.abort(cancellationError('CANCELLED'));
        this.held.delete(token);
        return;
      }
      let signal: AbortSignal | undefined;
      if (looksLikeInfer(method, url!)) {
        const controller = new AbortController();
        this.held.set(token, controller);
        signal = controller.signal;
      }
      // While tracing, when the request came; a trace JS makes of it waits on it to be sent.
      const arrival: FrontEndArrival | undefined = received ? { protocol: 'http', startNs: received[0], endNs: received[1] } : undefined;
      void this.handler({ method, url: url!, headers: headerRecord(headers!), body: body!, http10: http10!, signal, received: arrival }).then((a) => {
        if (!a.stream) {
          if (signal) this.held.delete(token);
          native.answer(token, a.status, headerLines(a.headers), a.body, a.close === true, undefined, arrival?.trace);
          return;
        }
        // A streamed answer's client can still go away after its first part: the request stays
        // cancellable until the last.
        native.answer(token, a.status, headerLines(a.headers), a.body, a.close === true, BodyPart.First);
        a.stream.attach({
          send: (chunk) => native.answer(token, a.status, '', chunk, false, BodyPart.Next),
          end: () => {
            if (signal) this.held.delete(token);
            native.answer(token, a.status, '', EMPTY, false, BodyPart.Last, arrival?.trace);
          },
        });
      });
    });
    for (const [model, [versions, defaultVersion]] of this.published) native.publish(model, versions, defaultVersion);
    const port = native.listen();
    this.native = native;
    this.stopRequestLog = logNativeRequests(native, this.log, (method, url) => this.log.verbose('http request', { method, url, route: 'native' }), 'http requests not logged');
    return port;
  }

  get accepted(): number {
    return this.native?.counters().accepted ?? 0;
  }

  get answered(): number {
    return this.native?.counters().answered ?? 0;
  }

  get inFlightCount(): number {
    return this.native?.counters().inFlight ?? 0;
  }

  /** Body bytes the native server holds now (charged to --http-max-inflight-body). */
  get bodyBytes(): number {
    return this.native?.counters().bodyBytes ?? 0;
  }

  /** Requests each native loop thread accepted, in loop order (one entry per --http-thread-count). */
  get acceptedByLoop(): number[] {
    return this.native?.counters().acceptedByLoop ?? [];
  }

  /** Requests the native server handed to the JS handler (the rest it answered itself). */
  get forwarded(): number {
    return this.native?.counters().handedOff ?? 0;
  }

  /** Replaces what the native infer route may run for `model`; an empty list withdraws it. */
  publish(model: string, versions: PublishedVersion[], defaultVersion: string): void {
    if (versions.length > 0) this.published.set(model, [versions, defaultVersion]);
    else this.published.delete(model);
    this.native?.publish(model, versions, defaultVersion);
  }

  takeFailures(): NativeFailureCount[] {
    return this.native?.takeFailures() ?? [];
  }

  /** Graceful: answers what is in flight (with Connection: close), then the server's thread ends. */
  async close(timeoutMs: number): Promise<void> {
    if (!this.closing) this.closing = (async () => {
      await this.native?.close(timeoutMs);
      this.stopRequestLog();
    })();
    return this.closing;
  }

  private closing?: Promise<void>;
}
