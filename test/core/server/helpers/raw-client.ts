/** A raw HTTP/1.1 client on a net.Socket that counts every answer it gets (Content-Length framed). */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** The body's bytes as sent (body is their UTF-8 reading). */
  raw: Buffer;
}

export class RawClient {
  readonly socket: net.Socket;
  readonly answers: RawAnswer[] = [];
  closed = false;
  private buffer = Buffer.alloc(0);
  private readonly waiters: Array<() => void> = [];
  readonly connected: Promise<void>;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()));
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buffer.byteLength < end + 4 + length) return;
      const raw = Buffer.from(this.buffer.subarray(end + 4, end + 4 + length));
      this.answers.push({ status: Number(head.slice(9, 12)), headers: head, body: raw.toString('utf8'), raw });
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.wake();
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once the bytes are handed to the kernel. */
  send(text: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(text, () => resolve()));
  }

  /** Waits until `count` answers arrived or the connection closed. */
  async waitFor(count: number): Promise<void> {
    while (this.answers.length < count && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async waitClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export function post(path: string, body: string, extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: t\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
