/**
 * The HTTP data-plane client, built the way autocannon and wrk build theirs: each request's bytes
 * (request line, headers, binary-extension body) are serialised once, and every send is one write
 * on a keep-alive socket, answered by an incremental parser. One request per connection at a time
 * (no pipelining), one connection per outstanding request — what concurrency N means.
 */
import net from 'node:net';
import { GebeError } from '../../../errors.js';
import { inferenceRefused, unreachable } from './server-errors.js';
import { HttpResponseParser, type ParsedResponse } from './http-response-parser.js';
import type { EncodedHttpRequest } from './kserve-binary.js';
import type { InferClient, RequestTiming } from './types.js';

interface Waiter {
  resolve: (timing: RequestTiming) => void;
  reject: (err: unknown) => void;
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
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
    return new GebeError(`the server at ${origin} closed the connection during a request (${err.code}); is it still running?`);
  }
  return err;
}

class Connection {
  private readonly socket: net.Socket;
  private readonly parser = new HttpResponseParser();
  private waiter?: Waiter;
  closed = false;

  constructor(host: string, port: number, private readonly origin: string, private readonly onDone: (c: Connection) => void) {
    this.socket = net.connect({ host, port, noDelay: true });
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
    const { response } = done;
    if (response.close) this.destroy();
    if (response.status !== 200) {
      let message = response.errorBody ?? '';
      try { message = String((JSON.parse(message) as { error?: unknown }).error ?? message); } catch { /* plain text */ }
      w.reject(inferenceRefused(this.origin, { http: response.status }, message));
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
    w?.reject(err);
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
  private readonly host: string;
  private readonly port: number;
  private readonly origin: string;
  private next = 0;

  constructor(baseUrl: string, inferPath: string, bodies: EncodedHttpRequest[]) {
    const url = new URL(baseUrl);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port || 80);
    this.origin = `${url.protocol}//${url.host}`;
    this.requests = bodies.map(({ body, headerLength }) => Buffer.concat([
      Buffer.from(
        `POST ${url.pathname.replace(/\/$/, '')}${inferPath} HTTP/1.1\r\n` +
        `Host: ${url.host}\r\n` +
        'Content-Type: application/octet-stream\r\n' +
        `Inference-Header-Content-Length: ${headerLength}\r\n` +
        `Content-Length: ${body.byteLength}\r\n` +
        'Connection: keep-alive\r\n\r\n',
        'latin1',
      ),
      body,
    ]));
  }

  infer(): Promise<RequestTiming> {
    const bytes = this.requests[this.next]!;
    this.next = (this.next + 1) % this.requests.length;
    let connection = this.idle.pop();
    if (!connection) {
      connection = new Connection(this.host, this.port, this.origin, (c) => this.idle.push(c));
      this.all.add(connection);
    }
    const c = connection;
    return new Promise((resolve, reject) => {
      c.send(bytes, {
        resolve,
        reject: (err) => { this.all.delete(c); reject(err); },
        startedAt: performance.now(), sentAt: 0, firstByteAt: 0,
      });
    });
  }

  async close(): Promise<void> {
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.idle.length = 0;
  }
}
