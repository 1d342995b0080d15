/**
 * The parameters model.py sends as JSON text (a BLS request's, a response's): Triton's kind of
 * object, bounded, and every other shape refused in words that name what was wrong.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PARAMETER_BYTES, parseParameters } from '../../../src/core/python-backend/parameters.js';

const parse = (text: unknown) => {
  try {
    return parseParameters(text, "the response's parameters");
  } catch (err) {
    return (err as Error).message;
  }
};

describe('parameters from model.py', () => {
  it('takes an object of strings, numbers and booleans; an empty one is none', () => {
    expect(parse('{"a": "x", "b": 3, "c": 0.5, "d": true}')).toEqual({ a: 'x', b: 3, c: 0.5, d: true });
    expect(parse('{}')).toBeUndefined();
  });

  it('refuses what is not such an object, naming it', () => {
    expect(parse(7)).toBe("the response's parameters are not a JSON string");
    expect(parse('{"a": ')).toBe("the response's parameters are not valid JSON");
    expect(parse('NaN')).toBe("the response's parameters are not valid JSON");
    expect(parse('[1]')).toBe("the response's parameters are not a JSON object");
    expect(parse('null')).toBe("the response's parameters are not a JSON object");
    expect(parse('{"nested": {"x": 1}}')).toBe("the response's parameter 'nested' is a dict; parameters are strings, integers or booleans");
    expect(parse('{"list": [1]}')).toBe("the response's parameter 'list' is a list; parameters are strings, integers or booleans");
    expect(parse('{"none": null}')).toBe("the response's parameter 'none' is None; parameters are strings, integers or booleans");
  });

  it('refuses more than a request\'s parameters may take, before parsing', () => {
    const big = JSON.stringify({ text: 'x'.repeat(MAX_PARAMETER_BYTES) });
    expect(parse(big)).toBe(`the response's parameters take ${Buffer.byteLength(big)} bytes as JSON, more than the ${MAX_PARAMETER_BYTES} they may take`);
  });
});
