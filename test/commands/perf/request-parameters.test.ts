import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parseRequestParameters } from '../../../src/commands/perf/request-parameters.js';

function usage(...texts: string[]): string {
  try { parseRequestParameters(texts); } catch (err) { expect(err).toBeInstanceOf(UsageError); return (err as Error).message; }
  throw new Error('expected a UsageError');
}

describe('--request-parameter name:value:type', () => {
  it('reads string, int and bool values (the type in any case, a value with colons whole)', () => {
    expect(parseRequestParameters(['mode:fast:string', 'max_tokens:-256:INT', 'stream:True:bool', 'url:http://h:8000/x:string', 'empty::string'])).toEqual({
      mode: 'fast', max_tokens: -256, stream: true, url: 'http://h:8000/x', empty: '',
    });
    expect(parseRequestParameters([])).toBeUndefined();
  });

  it('refuses each name the protocol reserves, naming it', () => {
    for (const name of ['sequence_id', 'sequence_start', 'sequence_end', 'priority', 'timeout', 'binary_data_output']) {
      expect(usage(`${name}:1:int`)).toBe(`--request-parameter "${name}:1:int": "${name}" is a request parameter the protocol reserves ` +
        '(the server reads priority, timeout, sequence_id, sequence_start, sequence_end, binary_data_output itself); give your parameter another name');
    }
    expect(usage('triton_enable_empty_final_response:true:bool')).toBe(
      '--request-parameter "triton_enable_empty_final_response:true:bool": "triton_enable_empty_final_response" is set by gebe perf itself on gRPC streams (--streaming); give your parameter another name');
  });

  it('refuses a malformed one with the fix', () => {
    expect(usage('mode')).toBe('--request-parameter "mode" is not name:value:type; e.g. --request-parameter max_tokens:256:int');
    expect(usage('mode:fast')).toBe('--request-parameter "mode:fast" is not name:value:type; e.g. --request-parameter max_tokens:256:int');
    expect(usage(':fast:string')).toBe('--request-parameter ":fast:string" is not name:value:type; e.g. --request-parameter max_tokens:256:int');
    expect(usage('n:1:float')).toBe('--request-parameter "n:1:float": type "float" is not one of string, int, bool; e.g. --request-parameter max_tokens:256:int');
    expect(usage('n:1.5:int')).toBe('--request-parameter "n:1.5:int": "1.5" is not a whole number between -9007199254740991 and 9007199254740991 (type int); e.g. --request-parameter max_tokens:256:int');
    expect(usage('n:9007199254740992:int')).toContain('"9007199254740992" is not a whole number');
    expect(usage('n:yes:bool')).toBe('--request-parameter "n:yes:bool": "yes" is not true or false (type bool); e.g. --request-parameter stream:true:bool');
    expect(usage('n:1:int', 'n:2:int')).toBe('--request-parameter is given twice for "n"; keep one');
  });
});
