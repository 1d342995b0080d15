/**
 * An incremental HTTP/1.1 response parser for the load client: status, headers, and a body framed
 * by Content-Length or chunked encoding. It keeps the body only for error responses (to report
 * the server's message); a successful response's bytes are counted, not copied.
 */
export interface ParsedResponse {
  status: number;
  /** The body text, for non-200 responses only. */
  errorBody?: string;
  /** The server asked to close the connection after this response. */
  close: boolean;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class HttpResponseParser {
  private state: State = 'head';
  private pending: Buffer = Buffer.alloc(0);
  private status = 0;
  private close = false;
  private remaining = 0;
  private keep: Buffer[] = [];

  /** Feeds bytes; returns the response once complete (with any bytes after it), else undefined. */
  push(chunk: Buffer): { response: ParsedResponse; rest: Buffer } | undefined {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    for (;;) {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(HEAD_END);
          if (end < 0) { this.pending = buf; return undefined; }
          this.readHead(buf.subarray(0, end).toString('latin1'));
          buf = buf.subarray(end + 4);
          break;
        }
        case 'length': {
          const take = Math.min(this.remaining, buf.length);
          if (this.status !== 200) this.keep.push(Buffer.from(buf.subarray(0, take)));
          this.remaining -= take;
          buf = buf.subarray(take);
          if (this.remaining > 0) return undefined;
          return this.finish(buf);
        }
        case 'chunk-size': {
          const end = buf.indexOf(CRLF);
          if (end < 0) { this.pending = buf; return undefined; }
          const size = parseInt(buf.subarray(0, end).toString('latin1').split(';')[0]!, 16);
          if (!Number.isFinite(size)) throw new Error('the server sent a malformed chunk size');
          buf = buf.subarray(end + 2);
          this.remaining = size;
          this.state = size === 0 ? 'trailer' : 'chunk-data';
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.remaining, buf.length);
          if (this.status !== 200) this.keep.push(Buffer.from(buf.subarray(0, take)));
          this.remaining -= take;
          buf = buf.subarray(take);
          if (this.remaining > 0) return undefined;
          this.state = 'chunk-end';
          break;
        }
        case 'chunk-end': {
          if (buf.length < 2) { this.pending = buf; return undefined; }
          buf = buf.subarray(2);
          this.state = 'chunk-size';
          break;
        }
        case 'trailer': {
          const end = buf.indexOf(CRLF);
          if (end < 0) { this.pending = buf; return undefined; }
          buf = buf.subarray(end + 2);
          if (end === 0) return this.finish(buf);
          break;
        }
      }
    }
  }

  private readHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!m) throw new Error(`the server sent something that is not an HTTP/1.1 response: ${JSON.stringify((lines[0] ?? '').slice(0, 60))}`);
    this.status = Number(m[1]);
    let length = 0;
    let chunked = false;
    this.close = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.includes('chunked');
      else if (name === 'connection') this.close = value === 'close';
    }
    this.remaining = length;
    this.state = chunked ? 'chunk-size' : 'length';
  }

  private finish(rest: Buffer): { response: ParsedResponse; rest: Buffer } {
    const response: ParsedResponse = {
      status: this.status,
      close: this.close,
      ...(this.status !== 200 ? { errorBody: Buffer.concat(this.keep).toString('utf8') } : {}),
    };
    this.state = 'head';
    this.keep = [];
    this.status = 0;
    return { response, rest };
  }
}
