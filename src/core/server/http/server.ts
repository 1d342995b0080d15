/**
 * The HTTP front end on node:https, for --http-use-ssl (the native server speaks no TLS), and
 * node:http with --http-frontend node: keep-alive, header and request timeouts (slow header senders
 * are cut off), a body limit and a budget for all bodies together, a connection limit, and a drain
 * that answers every request already on an open connection before the server closes. Each whole
 * request goes to the same handler as the native server's (handler.ts).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import type { InferenceService } from '../inference-service.js';
import { BodyBudget, defaultMaxInflightBodyBytes, DRAIN_IDLE_GRACE_MS, MALFORMED_REQUEST_PREFIX, maxConnectionsMessage, maxUnsentAnswerBytes, passesUnsentBound, REQUEST_TIMEOUT_MESSAGE } from '../limits.js';
import type { Logger } from '../logger.js';
import type { Restrictions } from '../restricted-api.js';
import { readRawBody } from './body.js';
import { createHttpHandler, type HttpHandler } from './handler.js';
import { errorAnswer, type HttpAnswer } from './respond.js';
import { looksLikeInfer } from './routes.js';
import { cancellationError } from '../../executor/cancellation.js';

export interface HttpOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** All bodies being received together (default: defaultMaxInflightBodyBytes). */
  maxInflightBodyBytes?: number;
  /** Open connections; one more gets a 503 and is closed. Unlimited when left out. */
  maxConnections?: number;
  /** A client must finish sending its headers within this time (Node's headersTimeout). */
  headersTimeoutMs?: number;
  /** A whole request must arrive within this time (Node's requestTimeout). */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** How often Node checks those timeouts. */
  timeoutCheckIntervalMs?: number;
  /** --http-restricted-api. */
  restrictions?: Restrictions;
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  /** The native front end's busy poll after each request and answer, in µs (node:http has none). */
  busyPollUs?: number;
  /** The native front end's loop threads on the port (node:http runs on node's one thread). */
  threads?: number;
  /** --http-header-forward-pattern (server/header-forwarding.ts). */
  headerForwardPattern?: RegExp;
}

/** A raw error answer on a socket that is not (or no longer) in an HTTP exchange. */
function rawError(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ error: message });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Aborts when the connection closes before the answer is written: the client went away. */
function abortOnClose(res: http.ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(cancellationError('CANCELLED'));
  });
  return controller.signal;
}

export class HttpFrontend {
  private readonly server: http.Server;
  private inFlight = 0;
  /** Requests accepted and requests answered, for the shutdown guarantee (and its test). */
  accepted = 0;
  answered = 0;
  private draining = false;
  /** Answers from now on say Connection: close (set by close(), or by the native front end's drain). */
  private closingAnswers = false;
  private readonly unanswered = new Set<http.ServerResponse>();
  private drained?: () => void;
  private connections = 0;
  private readonly refused = new WeakSet<Socket>();
  readonly budget: BodyBudget;
  private readonly handler: HttpHandler;

  constructor(service: InferenceService, private readonly options: HttpOptions, private readonly log: Logger) {
    this.budget = new BodyBudget(options.maxInflightBodyBytes ?? defaultMaxInflightBodyBytes(options.maxBodyBytes));
    this.handler = createHttpHandler(service, { maxBodyBytes: options.maxBodyBytes, restrictions: options.restrictions, headerForwardPattern: options.headerForwardPattern }, log);
    const serverOptions: http.ServerOptions = {
      keepAlive: true,
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      requestTimeout: options.requestTimeoutMs ?? 300_000,
      connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 5_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
      noDelay: true,
      // Checked in handle(), so that the answer is a JSON error like every other (and HTTP/1.0,
      // which may leave Host out, passes).
      requireHostHeader: false,
    };
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => this.handle(req, res);
    this.server = options.tls ? https.createServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, handler) : http.createServer(serverOptions, handler);
    this.server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => this.onConnection(socket));
    // CONNECT comes as an event of its own: without this listener node would drop the connection unanswered.
    this.server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
      this.accepted++;
      void this.handler({ method: 'CONNECT', url: req.url ?? '', headers: {}, body: Buffer.alloc(0), http10: false }).then((a) => {
        socket.end(rawError(a.status, 'Method Not Allowed', (JSON.parse(a.body.toString('utf8')) as { error: string }).error));
        this.answered++;
      });
    });
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      // Malformed requests and header timeouts: answer when the socket still can, never crash.
      if (socket.writable && !this.refused.has(socket as Socket)) {
        const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT' ? 408 : 400;
        socket.end(rawError(status, status === 408 ? 'Request Timeout' : 'Bad Request', status === 408 ? REQUEST_TIMEOUT_MESSAGE : MALFORMED_REQUEST_PREFIX + err.message));
      } else {
        socket.destroy();
      }
      this.log.verbose('http client error', { error: err.message });
    });
  }

  private onConnection(socket: Socket): void {
    this.connections++;
    socket.once('close', () => this.connections--);
    const max = this.options.maxConnections;
    if (max !== undefined && this.connections > max) {
      this.refused.add(socket);
      socket.end(rawError(503, 'Service Unavailable', maxConnectionsMessage(max)));
    }
  }

  /** Requests accepted and not yet answered. */
  get inFlightCount(): number {
    return this.inFlight;
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const ready = (): void => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address !== null ? (address as AddressInfo).port : 0);
      };
      this.server.listen(this.options.port, this.options.host, ready);
    });
  }

  /** One listener for every response (a closure per request shows in profiles); `this` is the response. */
  private readonly onResponseClose = ((frontend: HttpFrontend) => function (this: http.ServerResponse): void {
    frontend.answered++;
    frontend.unanswered.delete(this);
    if (--frontend.inFlight === 0 && frontend.draining) frontend.drained?.();
  })(this);

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.refused.has(req.socket)) {
      req.socket.destroy();  // answered 503 at connect; what it sends after is not read
      return;
    }
    this.inFlight++;
    this.accepted++;
    if (this.closingAnswers) res.setHeader('Connection', 'close');
    else this.unanswered.add(res);
    res.on('close', this.onResponseClose);
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const signal = looksLikeInfer(method, url) ? abortOnClose(res) : undefined;
    readRawBody(req, this.options.maxBodyBytes, this.budget).then(
      (body) => this.handler({ method, url, headers: req.headers as Record<string, string>, body, http10: req.httpVersionMinor === 0, signal }),
      (err: unknown) => errorAnswer(err),
    ).then((answer) => this.write(req, res, answer));
  }

  private write(req: http.IncomingMessage, res: http.ServerResponse, answer: HttpAnswer): void {
    if (res.headersSent || res.destroyed) return;
    // The rest of an unread body must not be parsed as the next request: close after it.
    if (answer.close || !req.complete) res.setHeader('Connection', 'close');
    if (answer.stream) {
      // Streamed: no Content-Length, so node sends the body chunked, part by part.
      res.writeHead(answer.status, answer.headers);
      res.write(answer.body);
      // A client gone mid-stream (the request is cancelled: abortOnClose) gets nothing more; one
      // that leaves more than the bound unread is cut off the same way, as natively.
      const maxUnsent = maxUnsentAnswerBytes(this.options.maxBodyBytes);
      const send = (chunk: Buffer): void => {
        if (res.destroyed) return;
        if (passesUnsentBound(res.writableLength, chunk.byteLength, maxUnsent)) res.destroy();
        else res.write(chunk);
      };
      answer.stream.attach({ send, end: () => void (res.destroyed || res.end()) });
    } else {
      res.writeHead(answer.status, { ...answer.headers, 'Content-Length': answer.body.byteLength });
      res.end(answer.body);
    }
    if (!req.complete) req.resume();
  }

  /** Every answer not yet begun (and every later one) says Connection: close. */
  closeAfterAnswers(): void {
    if (this.closingAnswers) return;
    this.closingAnswers = true;
    for (const res of this.unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
    this.unanswered.clear();
  }

  /**
   * Stops accepting, answers every request already on an open connection (those arriving now get
   * Connection: close), gives idle keep-alive connections DRAIN_IDLE_GRACE_MS for a request sent
   * just before the signal, and closes every connection once nothing is in flight (or after
   * `timeoutMs`).
   */
  async close(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.closeAfterAnswers();
    // net.Server's close: stop listening. http.Server's close would also drop idle keep-alive
    // connections at once, losing a request that is on its way on one of them.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(this.server, () => resolve()));
    const deadline = Date.now() + timeoutMs;
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_IDLE_GRACE_MS, timeoutMs)).unref());
    while (this.inFlight > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, deadline - Date.now()).unref();
      });
      // A request may have come in on an idle connection meanwhile: a short grace for the next.
      if (this.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, Math.min(10, Math.max(0, deadline - Date.now()))).unref());
    }
    this.server.closeIdleConnections();
    this.server.closeAllConnections();
    await closed;
  }
}
