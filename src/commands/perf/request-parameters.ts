/**
 * perf_analyzer's --request-parameter name:value:type (repeatable): a parameter every infer request
 * carries, type string, int or bool (in any case, as perf_analyzer reads it). A value may hold
 * colons (a URL, a time): the name ends at the first colon and the type begins after the last.
 */
import { UsageError } from '../../errors.js';
import { EMPTY_FINAL_PARAMETER } from '../../core/kserve/codec/grpc-infer.js';
import { RESERVED_PARAMETERS } from '../../core/kserve/codec/http-infer-request.js';
import type { RequestParameters } from '../../core/kserve/client/types.js';

const EXAMPLE = '--request-parameter max_tokens:256:int';

function value(text: string, raw: string, type: string): string | number | boolean {
  switch (type) {
    case 'string':
      return raw;
    case 'int': {
      // JSON and the executor's parameters carry a JS number: past 2^53 it would not be the value given.
      const n = Number(raw);
      if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(n)) {
        throw new UsageError(`--request-parameter "${text}": "${raw}" is not a whole number between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (type int); e.g. ${EXAMPLE}`);
      }
      return n;
    }
    case 'bool': {
      const b = raw.toLowerCase();
      if (b !== 'true' && b !== 'false') throw new UsageError(`--request-parameter "${text}": "${raw}" is not true or false (type bool); e.g. --request-parameter stream:true:bool`);
      return b === 'true';
    }
    default:
      throw new UsageError(`--request-parameter "${text}": type "${type}" is not one of string, int, bool; e.g. ${EXAMPLE}`);
  }
}

/** The --request-parameter flags as parameters by name; undefined when none is given. */
export function parseRequestParameters(texts: readonly string[]): RequestParameters | undefined {
  if (texts.length === 0) return undefined;
  const parameters: Record<string, string | number | boolean> = {};
  for (const text of texts) {
    const first = text.indexOf(':');
    const last = text.lastIndexOf(':');
    if (first <= 0 || last === first) throw new UsageError(`--request-parameter "${text}" is not name:value:type; e.g. ${EXAMPLE}`);
    const name = text.slice(0, first);
    if (RESERVED_PARAMETERS.has(name)) {
      throw new UsageError(`--request-parameter "${text}": "${name}" is a request parameter the protocol reserves (the server reads ${[...RESERVED_PARAMETERS].join(', ')} itself); give your parameter another name`);
    }
    if (name === EMPTY_FINAL_PARAMETER) {
      throw new UsageError(`--request-parameter "${text}": "${name}" is set by gebe perf itself on gRPC streams (--streaming); give your parameter another name`);
    }
    if (Object.hasOwn(parameters, name)) throw new UsageError(`--request-parameter is given twice for "${name}"; keep one`);
    parameters[name] = value(text, text.slice(first + 1, last), text.slice(last + 1).toLowerCase());
  }
  return parameters;
}
