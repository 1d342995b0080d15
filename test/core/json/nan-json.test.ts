import { describe, expect, it } from 'vitest';
import { parseJsonAllowingNonFinite as parse } from '../../../src/core/json/nan-json.js';

describe('parseJsonAllowingNonFinite', () => {
  it('reads the bare tokens Triton writes for non-finite floats', () => {
    const v = parse('{"data":[1.5,NaN,Infinity,-Infinity, NaN ,\n-Infinity]}') as { data: number[] };
    expect(v.data[0]).toBe(1.5);
    expect(Number.isNaN(v.data[1])).toBe(true);
    expect(v.data.slice(2, 4)).toEqual([Infinity, -Infinity]);
    expect(Number.isNaN(v.data[4])).toBe(true);
    expect(v.data[5]).toBe(-Infinity);
    expect(Number.isNaN(parse('NaN') as number)).toBe(true);
    expect(parse(' -Infinity ')).toBe(-Infinity);
    expect(parse('{"a":Infinity}')).toEqual({ a: Infinity });
  });

  it('leaves the same letters inside strings alone, escapes included', () => {
    const tricky = [
      '"NaN"', '"Infinity"', '"-Infinity"', '"\\"NaN"', '"a\\\\"', '"\\\\\\"Infinity\\""', '"x NaN, Infinity]"', '"\\u004eaN"',
    ];
    for (const s of tricky) expect(parse(`[${s}, NaN]`)).toEqual([JSON.parse(s), NaN]);
    expect(parse('{"NaN":"Infinity","k":[NaN,"NaN"]}')).toEqual({ NaN: 'Infinity', k: [NaN, 'NaN'] });
    expect(parse('["a\\\\",Infinity,"\\"",NaN]')).toEqual(['a\\', Infinity, '"', NaN]);
  });

  it('keeps the marker it uses for NaN out of reach of a string the text holds', () => {
    const v = parse('["\\u0000gebe-nan-", NaN]') as unknown[];
    expect(v[0]).toBe('\u0000gebe-nan-');
    expect(Number.isNaN(v[1])).toBe(true);
  });

  it('still refuses what is not JSON, non-finite spellings in key places included', () => {
    for (const bad of ['{NaN: 1}', '{"a":1, NaN: 2}', '[NaNa]', '[Infinityx]', '[nan]', '[inf]', '[+Infinity]', '[- Infinity]', '[NaN', '"NaN', '{"a" NaN}', '[1 NaN]']) {
      expect(() => parse(bad), bad).toThrow(SyntaxError);
    }
  });

  it('restores NaN at any depth, in objects and arrays, without recursion', () => {
    expect(parse('{"a":{"b":[[NaN],{"c":NaN}]},"d":NaN}')).toEqual({ a: { b: [[NaN], { c: NaN }] }, d: NaN });
    const depth = 50_000;
    let v = parse(`${'['.repeat(depth)}NaN${']'.repeat(depth)}`) as unknown;
    for (let i = 0; i < depth; i++) v = (v as unknown[])[0];
    expect(Number.isNaN(v)).toBe(true);
  });

  it('parses plain JSON exactly as JSON.parse does', () => {
    const text = '{"name":"INPUT0","datatype":"INT32","shape":[2],"data":[1,-2],"s":"Inf"}';
    expect(parse(text)).toEqual(JSON.parse(text));
  });
});
