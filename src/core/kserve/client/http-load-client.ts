/**
 * The HTTP data-plane client, built the way autocannon and wrk build theirs: each request's bytes
 * (request line, headers, binary-extension body) are serialised once, and every send is one write
 * on a keep-alive socket, answered by an incremental parser. One request per connection at a time
 * (no pipelining), one connection per outstanding request — what concurrency N means.
 *
 * A server may close a keep-alive connection while it sits idle (its keep-alive timeout, a restart
 * of its front end), and the close can cross the next request on the wire. Like every HTTP client,
 * a request that fails that way on a reused connection, before any byte of its answer, is sent once
 * more on a fresh one; a failure on a fresh connection is the server's and is reported.
 */
import net from 'node:net';
import { connect as connectTls, type ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { GebeError } from '../../../errors.js';
import { errorText, inferenceRefused, isTlsFailure, unreachable } from './server-errors.js';
import { HttpResponseParser, type ParsedResponse } from './http-response-parser.js';
import { withSequenceParameters, type EncodedHttpRequest } from './http-binary.js';
import type { SequenceStep } from './types.js';
import { httpHeaderLines } from './request-headers.js';
import { isHttps, tlsOptions, type RemoteConnection } from './connection.js';
import type { InferClient, RequestTiming } from './types.js';

interface Waiter {
  resolve: (timing: RequestTiming) => void;
  /** `stale`: the connection had answered before and failed before this request's first byte back. */
  reject: (err: unknown, stale: boolean) => void;
  startedAt: number;
  sentAt: number;
  firstByteAt: number;
}

/**
 * Socket errors as one-line errors that say what happened: nothing listening, or a server that
 * went away mid-request (a reset, e.g. when it stops with requests unanswered, reads like a close).
 */
function transportError(origin: string, err: NodeJS.ErrnoException): Error {
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH') return unreachable(origin, err.code ?? err.message);
  // A certificate check or handshake that failed: unreachable() words it as TLS's.
  if (err.code !== undefined && isTlsFailure(err.code)) return unreachable(origin, err.code);
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
    return new GebeError(`the server at ${origin} closed the connection during a request (${err.code}); is it still running?`);
  }
  return err;
}

class Connection {
  private readonly socket: net.Socket;
  private readonly parser = new HttpResponseParser();
  private waiter?: Waiter;
  private answered = 0;
  closed = false;

  /** `tls`: node:tls options when the server is https (undefined: plain TCP). */
  constructor(host: string, port: number, private readonly origin: string, private readonly onDone: (c: Connection) => void, tls?: TlsConnectOptions) {
    this.socket = tls ? connectTls({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...tls }).setNoDelay(true) : net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) => this.fail(transportError(origin, err)));
    this.socket.on('close', () => this.fail(new GebeError(`the server at ${origin} closed the connection during a request`)));
  }

  send(bytes: Buffer, waiter: Waiter): void {
    this.waiter = waiter;
    this.socket.write(bytes, () => { waiter.sentAt = performance.now(); });
  }

  private onData(chunk: Buffer): void {
    const w = this.waiter;
    if (!w) {
      this.fail(new GebeError(`the server at ${this.origin} sent bytes nobody asked for`));
      return;
    }
    if (w.firstByteAt === 0) w.firstByteAt = performance.now();
    let done: { response: ParsedResponse; rest: Buffer } | undefined;
    try {
      done = this.parser.push(chunk);
    } catch (err) {
      this.fail(new GebeError(`bad HTTP response from ${this.origin}: ${(err as Error).message}`));
      return;
    }
    if (!done) return;
    this.waiter = undefined;
    this.answered++;
    const { response } = done;
    if (response.close) this.destroy();
    if (response.status !== 200) {
      w.reject(inferenceRefused(this.origin, { http: response.status }, errorText(response.errorBody ?? '')), false);
    } else {
      const end = performance.now();
      const sentAt = w.sentAt || w.firstByteAt;
      w.resolve({ sendUs: (sentAt - w.startedAt) * 1000, recvUs: (end - w.firstByteAt) * 1000 });
    }
    if (!this.closed) this.onDone(this);
  }

  private fail(err: unknown): void {
    this.closed = true;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(err, this.answered > 0 && w.firstByteAt === 0);
    this.socket.destroy();
  }

  destroy(): void {
    this.closed = true;
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

export class HttpInferClient implements InferClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly requests: Buffer[];
  private readonly bodies: EncodedHttpRequest[];
  private readonly head: (headerLength: number, contentLength: number) => string;
  private readonly host: string;
  private readonly port: number;
  private readonly origin: string;
  private readonly tls?: TlsConnectOptions;
  private next = 0;
  private closing = false;

  /** `connection`: TLS for an https:// base URL, and the user's headers in every request's head (-H). */
  constructor(baseUrl: string, inferPath: string, bodies: EncodedHttpRequest[], connection?: RemoteConnection) {
    const url = new URL(baseUrl);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.tls = isHttps(baseUrl) ? tlsOptions(connection) : undefined;
    this.port = Number(url.port || (this.tls ? 443 : 80));
    const headers = connection?.headers;
    this.origin = `${url.protocol}//${url.host}`;
    // A body that is all header is plain JSON, sent as a JSON client sends it.
    this.head = (headerLength, contentLength) =>
      `POST ${url.pathname.replace(/\/$/, '')}${inferPath} HTTP/1.1\r\n` +
      `Host: ${url.host}\r\n` +
      httpHeaderLines(headers) +
      (headerLength === contentLength ? 'Content-Type: application/json\r\n'
        : `Content-Type: application/octet-stream\r\nInference-Header-Content-Length: ${headerLength}\r\n`) +
      `Content-Length: ${contentLength}\r\n` +
      'Connection: keep-alive\r\n\r\n';
    this.bodies = bodies;
    this.requests = bodies.map((b) => this.requestBytes(b));
  }

  private requestBytes({ body, headerLength }: EncodedHttpRequest): Buffer {
    return Buffer.concat([Buffer.from(this.head(headerLength, body.byteLength), 'latin1'), body]);
  }

  infer(step?: SequenceStep): Promise<RequestTiming> {
    // A sequence step's parameters differ per request: its header is built for this send.
    const bytes = step ? this.requestBytes(withSequenceParameters(this.bodies[this.next]!, step)) : this.requests[this.next]!;
    this.next = (this.next + 1) % this.requests.length;
    const startedAt = performance.now();
    return new Promise((resolve, reject) => {
      const attempt = (retried: boolean) => {
        const c = this.connection();
        c.send(bytes, {
          resolve,
          reject: (err, stale) => {
            this.all.delete(c);
            if (stale && !retried && !this.closing) attempt(true);
            else reject(err);
          },
          // A retried request's latency still runs from its first send: the reconnect is part of it.
          startedAt, sentAt: 0, firstByteAt: 0,
        });
      };
      attempt(false);
    });
  }

  /** An idle connection the server has not closed, or a new one. */
  private connection(): Connection {
    for (let c = this.idle.pop(); c; c = this.idle.pop()) if (!c.closed) return c;
    const c = new Connection(this.host, this.port, this.origin, (done) => this.idle.push(done), this.tls);
    this.all.add(c);
    return c;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.idle.length = 0;
  }
}
