/**
 * The response cache's bookkeeping and keys: least recently used answers go first, the bytes held
 * stay within the size, one model version's answers go together, and a request's key changes with
 * everything that decides its answer and with nothing else.
 */
import { describe, expect, it } from 'vitest';
import { ResponseCache, cacheOwner, requestKey } from '../../../src/core/server/response-cache.js';
import type { InferRequest, InferResponse } from '../../../src/core/executor/types.js';

const answer = (bytes: number, fill = 1): InferResponse => ({
  modelName: 'm', modelVersion: '1', outputs: [{ name: 'y', datatype: 'UINT8', shape: [bytes], data: new Uint8Array(bytes).fill(fill) }],
});
const owner = cacheOwner('m', '1');

describe('ResponseCache', () => {
  it('answers what it holds, with its own copy of the tensors', () => {
    const cache = new ResponseCache(10_000);
    const original = answer(100, 7);
    expect(cache.insert('a', owner, { ...original, id: 'request-1' })).toBe(true);
    original.outputs[0]!.data.fill(0);  // the batch buffer the answer was a view of is reused
    const hit = cache.lookup('a')!;
    expect([...hit.outputs[0]!.data.subarray(0, 3)]).toEqual([7, 7, 7]);
    expect(hit.id).toBeUndefined();
    expect(cache.lookup('b')).toBeUndefined();
  });

  it('evicts the least recently used answers to stay within its size, and keeps none larger than itself', () => {
    const cache = new ResponseCache(1200);  // room for two 300-byte answers with their overhead, not three
    cache.insert('a', owner, answer(300));
    cache.insert('b', owner, answer(300));
    cache.lookup('a');  // b is now the least recently used
    cache.insert('c', owner, answer(300));
    expect(cache.lookup('b')).toBeUndefined();
    expect(cache.lookup('a')).toBeDefined();
    expect(cache.lookup('c')).toBeDefined();
    expect(cache.evictions).toBe(1);
    expect(cache.usedBytes).toBeLessThanOrEqual(1200);
    expect(cache.insert('huge', owner, answer(2000))).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('replaces an answer under the same key without counting it twice', () => {
    const cache = new ResponseCache(10_000);
    cache.insert('a', owner, answer(100));
    const used = cache.usedBytes;
    cache.insert('a', owner, answer(100, 2));
    expect(cache.usedBytes).toBe(used);
    expect(cache.lookup('a')!.outputs[0]!.data[0]).toBe(2);
  });

  it('drops one model version\'s answers together', () => {
    const cache = new ResponseCache(10_000);
    cache.insert('a', owner, answer(10));
    cache.insert('b', cacheOwner('m', '2'), answer(10));
    cache.dropOwner(owner);
    expect(cache.lookup('a')).toBeUndefined();
    expect(cache.lookup('b')).toBeDefined();
    expect(cache.size).toBe(1);
  });
});

describe('requestKey', () => {
  const input = (name: string, data: number[], shape = [data.length], datatype = 'UINT8' as const) => ({ name, datatype, shape, data: Uint8Array.from(data) });
  const base: InferRequest = { inputs: [input('a', [1, 2]), input('b', [3])] };
  const key = (r: InferRequest, o = owner) => requestKey(o, r);

  it('does not depend on the order inputs are listed in, the request id, priority or timeout', () => {
    expect(key({ inputs: [...base.inputs].reverse(), id: 'x', priority: 1, timeoutUs: 5 })).toBe(key(base));
  });

  it('changes with the model version, any input\'s name, datatype, shape or bytes, the outputs asked for and parameters', () => {
    const variants: InferRequest[] = [
      { inputs: [input('a', [1, 2]), input('c', [3])] },
      { inputs: [input('a', [1, 2], [2], 'INT8' as never), input('b', [3])] },
      { inputs: [input('a', [1, 2], [1, 2]), input('b', [3])] },
      { inputs: [input('a', [1, 3]), input('b', [3])] },
      { ...base, outputs: ['y'] },
      { ...base, outputs: ['y', 'z'] },
      { ...base, outputs: ['z', 'y'] },
      { ...base, parameters: { temperature: 1 } },
      { ...base, parameters: { temperature: '1' } },
    ];
    const keys = new Set([key(base), key(base, cacheOwner('m', '2')), ...variants.map((r) => key(r))]);
    expect(keys.size).toBe(variants.length + 2);
  });

  it('cannot be made to collide by moving bytes between names and data', () => {
    // The same bytes in a row, split differently between an input's name and another's data.
    const one: InferRequest = { inputs: [input('a', [0x62]), input('c', [])] };
    const two: InferRequest = { inputs: [input('a', []), input('bc', [])] };
    expect(key(one)).not.toBe(key(two));
    expect(key({ inputs: [input('a\u0000b', [1])] })).not.toBe(key({ inputs: [input('a', [0, 0x62, 1])] }));
    // A shape's text continued by the data: [1, 2] with no bytes, and [1] with the bytes ',2'.
    expect(key({ inputs: [input('a', [], [1, 2])] })).not.toBe(key({ inputs: [input('a', [0x2c, 0x32], [1])] }));
  });
});
