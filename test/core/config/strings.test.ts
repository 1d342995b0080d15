/**
 * String literal decoding and quoting, and the "did you mean" matcher.
 */
import { describe, expect, it } from 'vitest';
import { decodeStringContent, quoteString } from '../../../src/core/config/strings.js';
import { closestName, editDistance } from '../../../src/core/config/suggest.js';

describe('decodeStringContent', () => {
  it('decodes C escapes, octal, hex and Unicode escapes into UTF-8 text', () => {
    expect(decodeStringContent('a\\n\\t\\r\\\\\\"\\\'\\?\\a\\b\\f\\v').value).toBe('a\n\t\r\\"\'?\u0007\b\f\v');
    expect(decodeStringContent('\\101\\x42\\x4a\\u00e9\\U0001F600').value).toBe('ABJ\u00e9\u{1F600}');
    expect(decodeStringContent('\\303\\251').value).toBe('\u00e9');
    expect(decodeStringContent('plain \u4e2d').value).toBe('plain \u4e2d');
  });

  it('reports invalid escapes and escaped bytes that are not UTF-8, with their offsets', () => {
    expect(decodeStringContent('C:\\models').problems).toEqual([{ offset: 2, length: 2, kind: 'escape', message: '"\\m" is not a valid escape sequence' }]);
    expect(decodeStringContent('\\xZ').problems[0]).toMatchObject({ offset: 0, kind: 'escape' });
    expect(decodeStringContent('\\uD800').problems[0]).toMatchObject({ kind: 'escape' });
    expect(decodeStringContent('\\377').problems[0]).toMatchObject({ kind: 'utf8' });
    expect(decodeStringContent('abc\\').problems[0]).toMatchObject({ offset: 3, kind: 'escape' });
  });

  it('quotes any string so that it decodes back to itself', () => {
    const samples = ['', 'plain', 'quote " and \\ backslash', 'new\nline\ttab\r', '\u0000\u0001\u001f\u007f', '\u00e9\u4e2d\u{1F600}', "it's"];
    for (const s of samples) {
      const quoted = quoteString(s);
      expect(quoted.startsWith('"') && quoted.endsWith('"')).toBe(true);
      expect(decodeStringContent(quoted.slice(1, -1))).toEqual({ value: s, problems: [] });
    }
  });
});

describe('closestName', () => {
  const fields = ['name', 'platform', 'backend', 'max_batch_size', 'input', 'output', 'instance_group'];
  it('finds case slips, truncations, suffixes and typos, and nothing for unrelated words', () => {
    expect(closestName('Name', fields)).toBe('name');
    expect(closestName('max_batch', fields)).toBe('max_batch_size');
    expect(closestName('FP32', ['TYPE_FP32', 'TYPE_FP16'])).toBe('TYPE_FP32');
    expect(closestName('instance_groups', fields)).toBe('instance_group');
    expect(closestName('platfrom', fields)).toBe('platform');
    expect(closestName('zzz', fields)).toBeUndefined();
  });

  it('measures edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
});
