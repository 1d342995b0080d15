/**
 * The one JS handler of the HTTP API: every request the native infer route does not answer (health,
 * metadata, config, statistics, the repository API, /status, infer requests of models without a
 * native handle), whole and already framed, is answered here with a value the front end writes.
 * The native server calls it in process; node:https (--http-use-ssl) calls it too.
 */
import type { InferenceService } from '../inference-service.js';
import type { Logger } from '../logger.js';
import { ProtocolError } from '../../kserve/protocol-error.js';
import { httpRestrictedMessage, type Restrictions } from '../restricted-api.js';
import { errorAnswer, jsonAnswer, type HttpAnswer } from './respond.js';
import { route, type HttpRequestIn } from './routes.js';

export interface HttpHandlerOptions {
  maxBodyBytes: number;
  /** --http-restricted-api. */
  restrictions?: Restrictions;
  /** --http-header-forward-pattern: headers that go to the model as request parameters. */
  headerForwardPattern?: RegExp;
}

export type HttpHandler = (req: HttpRequestIn) => Promise<HttpAnswer>;

export function createHttpHandler(service: InferenceService, options: HttpHandlerOptions, log: Logger): HttpHandler {
  const answer = async (req: HttpRequestIn): Promise<HttpAnswer> => {
    if (req.method === 'CONNECT') {
      return { ...jsonAnswer(405, { error: `${req.method} is not allowed; gebe serves the KServe v2 protocol under /v2` }), close: true };
    }
    if (!req.http10 && req.headers.host === undefined) throw ProtocolError.badRequest('an HTTP/1.1 request must have a Host header');
    const target = route(req.method, req.url);
    const restriction = options.restrictions?.get(target.route.api);
    if (restriction && req.headers[restriction.key] !== restriction.value) return jsonAnswer(403, { error: httpRestrictedMessage(restriction.key) });
    return target.route.handler({
      req, service, maxBody: options.maxBodyBytes, model: target.model, version: target.version, region: target.region, headerForwardPattern: options.headerForwardPattern,
    });
  };
  return async (req) => {
    if (log.verboseEnabled) log.verbose('http request', { method: req.method, url: req.url });
    try {
      return await answer(req);
    } catch (err) {
      if (!(err instanceof ProtocolError) && !(err instanceof Error && err.name === 'InferError')) {
        log.error('http handler failed', { url: req.url, error: err instanceof Error ? err.stack ?? err.message : String(err) });
      }
      return errorAnswer(err);
    }
  };
}

/** Header names lower-cased, repeated values joined with ", " (Content-Length: the first), as node does. */
export function headerRecord(flat: readonly string[]): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;  // ('__proto__' is a header name like any other)
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i]!;
    const value = flat[i + 1]!;
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else if (name !== 'content-length') out[name] = `${previous}, ${value}`;
  }
  return out;
}

/** "Name: value\r\n" lines of an answer's header fields. */
export function headerLines(headers: HttpAnswer['headers']): string {
  let text = '';
  for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
  return text;
}
