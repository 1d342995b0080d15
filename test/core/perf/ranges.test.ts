import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { CONCURRENCY_SPEC, parseBatchSizes, parseLevels, parseShapes, REQUEST_RATE_SPEC } from '../../../src/core/perf/ranges.js';

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as UsageError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a UsageError');
}

describe('parseLevels', () => {
  it('expands start:end and start:end:step in order', () => {
    expect(parseLevels(CONCURRENCY_SPEC, '1:16')).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(parseLevels(CONCURRENCY_SPEC, '2:10:4')).toEqual([2, 6, 10]);
    expect(parseLevels(CONCURRENCY_SPEC, '4')).toEqual([4]);
  });

  it('keeps a list in the order given', () => {
    expect(parseLevels(CONCURRENCY_SPEC, '1,2,4,8,16')).toEqual([1, 2, 4, 8, 16]);
  });

  it('accepts fractional request rates without drift', () => {
    expect(parseLevels(REQUEST_RATE_SPEC, '0.5:1.5:0.5')).toEqual([0.5, 1, 1.5]);
  });

  it('rejects a descending range and shows the ascending one', () => {
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '16:1'))).toBe(
      '--concurrency "16:1": start 16 is greater than end 1; the range counts up, so write 1:16');
  });

  it('rejects a zero start and shows the fix', () => {
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '0:4'))).toBe(
      '--concurrency "0:4": start must be at least 1 (a level of 0 sends nothing); use 1:4');
  });

  it('rejects words', () => {
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, 'a:b'))).toBe(
      '--concurrency "a:b": start "a" is not a whole number; write start:end[:step] or a list, e.g. 1:16');
  });

  it('rejects fractional concurrency, a zero step, too many parts and a zero in a list', () => {
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '1.5:4'))).toContain('is not a whole number');
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '1:4:0'))).toContain('step must be at least 1');
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '1:2:3:4'))).toContain('got 4 parts');
    expect(usageMessage(() => parseLevels(CONCURRENCY_SPEC, '1,0,4'))).toContain('every value must be at least 1');
  });
});

describe('parseBatchSizes', () => {
  it('reads one size or a list, dropping repeats', () => {
    expect(parseBatchSizes('8')).toEqual([8]);
    expect(parseBatchSizes('1,4,8,16,8')).toEqual([1, 4, 8, 16]);
  });

  it('rejects zero and words', () => {
    expect(usageMessage(() => parseBatchSizes('0'))).toContain('batch sizes start at 1');
    expect(usageMessage(() => parseBatchSizes('1,x'))).toContain('"x" is not a whole number');
  });
});

describe('parseShapes', () => {
  it('reads name:d1,d2 for each input, names with colons included', () => {
    expect(parseShapes(['INPUT0:3,224,224', 'ns:x:4'])).toEqual({ INPUT0: [3, 224, 224], 'ns:x': [4] });
  });

  it('rejects a missing name, a bad dim and a repeated input', () => {
    expect(usageMessage(() => parseShapes(['3,224']))).toContain('expected name:d1,d2');
    expect(usageMessage(() => parseShapes(['x:3,-1']))).toContain('dim "-1"');
    expect(usageMessage(() => parseShapes(['x:3', 'x:4']))).toContain('given twice for input "x"');
  });
});
