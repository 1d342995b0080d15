/**
 * The HTTP front end on node:http: keep-alive, header and request timeouts (slow header senders are
 * cut off), a body limit, and a drain that lets accepted requests finish before the server closes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InferenceService } from '../inference-service.js';
import type { Logger } from '../logger.js';
import { ProtocolError } from '../protocol-error.js';
import { sendError } from './respond.js';
import { route } from './routes.js';

export interface HttpOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** A client must finish sending its headers within this time (Node's headersTimeout). */
  headersTimeoutMs?: number;
  /** A whole request must arrive within this time (Node's requestTimeout). */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** How often Node checks those timeouts. */
  timeoutCheckIntervalMs?: number;
}

export class HttpFrontend {
  private readonly server: http.Server;
  private inFlight = 0;
  /** Requests accepted and requests answered, for the shutdown guarantee (and its test). */
  accepted = 0;
  answered = 0;
  private draining = false;
  private drained?: () => void;

  constructor(private readonly service: InferenceService, private readonly options: HttpOptions, private readonly log: Logger) {
    this.server = http.createServer({
      keepAlive: true,
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      requestTimeout: options.requestTimeoutMs ?? 300_000,
      connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 5_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
      noDelay: true,
    }, (req, res) => this.handle(req, res));
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      // Malformed requests and header timeouts: answer when the socket still can, never crash.
      if (socket.writable) {
        const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT' ? 408 : 400;
        const body = JSON.stringify({ error: status === 408 ? 'request headers were not received in time' : `malformed HTTP request: ${err.message}` });
        socket.end(`HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      } else {
        socket.destroy();
      }
      this.log.verbose('http client error', { error: err.message });
    });
  }

  /** Requests accepted and not yet answered. */
  get inFlightCount(): number {
    return this.inFlight;
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /** One listener for every response (a closure per request shows in profiles). */
  private readonly onResponseClose = (): void => {
    this.answered++;
    if (--this.inFlight === 0 && this.draining) this.drained?.();
  };

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.inFlight++;
    this.accepted++;
    if (this.draining) res.setHeader('Connection', 'close');
    res.on('close', this.onResponseClose);
    if (this.log.verboseEnabled) this.log.verbose('http request', { method: req.method, url: req.url });
    const fail = (err: unknown): void => this.finishWithError(req, res, err);
    let result: Promise<void> | void;
    try {
      const target = route(req.method ?? 'GET', req.url ?? '/');
      result = target.route.handler({ req, res, service: this.service, maxBody: this.options.maxBodyBytes, model: target.model, version: target.version, fail });
    } catch (err) {
      fail(err);
      return;
    }
    if (result) result.catch(fail);
  }

  private finishWithError(req: http.IncomingMessage, res: http.ServerResponse, err: unknown): void {
    if (!(err instanceof ProtocolError) && !(err instanceof Error && err.name === 'InferError')) {
      this.log.error('http handler failed', { url: req.url, error: err instanceof Error ? err.stack ?? err.message : String(err) });
    }
    // The rest of an unread body must not be parsed as the next request: drain small ones, close after big ones.
    if (!req.complete) res.setHeader('Connection', 'close');
    sendError(res, err);
    if (!req.complete) req.resume();
  }

  /** Stops accepting, waits for accepted requests (up to `timeoutMs`), then closes every connection. */
  async close(timeoutMs: number): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    this.server.closeAllConnections();
    await closed;
  }
}
