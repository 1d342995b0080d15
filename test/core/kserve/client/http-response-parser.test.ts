import { describe, expect, it } from 'vitest';
import { HttpResponseParser } from '../../../../src/core/kserve/client/http-response-parser.js';

const b = (s: string) => Buffer.from(s, 'latin1');

/** Feeds the bytes one at a time: every split point must parse the same. */
function feedBytewise(parser: HttpResponseParser, text: string) {
  const bytes = b(text);
  for (let i = 0; i < bytes.length; i++) {
    const done = parser.push(bytes.subarray(i, i + 1));
    if (done) return { ...done, at: i };
  }
  return undefined;
}

describe('HttpResponseParser', () => {
  it('frames a Content-Length body split anywhere, and reuses itself for the next response', () => {
    const parser = new HttpResponseParser();
    const one = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nInference-Header-Content-Length: 2\r\n\r\n{}abc';
    const first = feedBytewise(parser, one)!;
    expect(first.response).toEqual({ status: 200, close: false });
    expect(first.at).toBe(one.length - 1);
    expect(parser.push(b(one))!.response.status).toBe(200);
  });

  it('keeps the body of an error response for its message', () => {
    const done = new HttpResponseParser().push(b('HTTP/1.1 400 Bad Request\r\ncontent-length: 17\r\nconnection: close\r\n\r\n{"error":"nope!"}'))!;
    expect(done.response).toEqual({ status: 400, close: true, errorBody: '{"error":"nope!"}' });
  });

  it('reads chunked bodies with extensions and trailers', () => {
    const text = 'HTTP/1.1 503 Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nbusy\r\n3\r\n...\r\n0\r\nX-Trailer: 1\r\n\r\n';
    const done = feedBytewise(new HttpResponseParser(), text)!;
    expect(done.response).toEqual({ status: 503, close: false, errorBody: 'busy...' });
    expect(done.at).toBe(text.length - 1);
  });

  it('handles an empty body and returns the bytes after the response', () => {
    const done = new HttpResponseParser().push(b('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1'))!;
    expect(done.response.status).toBe(200);
    expect(done.rest.toString()).toBe('HTTP/1.1');
  });

  it('refuses bytes that are not an HTTP response', () => {
    expect(() => new HttpResponseParser().push(b('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow('not an HTTP/1.1 response');
  });
});
