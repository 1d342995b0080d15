import { describe, expect, it } from 'vitest';
import { findErrorCodes, hintFor } from '../../../src/core/atc/error-codes.js';

describe('findErrorCodes', () => {
  it('finds each code once, errors before warnings, with the line that shows it and a hint', () => {
    const output = [
      'ATC start working now, please wait for a moment.',
      'W11001: Op [Conv_0] does not hit the high-priority operator information library.',
      'E10001: Value [Ascend999] for parameter [--soc_version] is invalid. Reason: unknown SoC.',
      '        TraceBack (most recent call last):',
      '        E19999: Inner Error! and again E10001',
      "ATC run failed, Please check the detail log, Try 'atc --help' for more information",
    ].join('\n');
    const codes = findErrorCodes(output);
    expect(codes.map((c) => c.code)).toEqual(['E10001', 'E19999', 'W11001']);
    expect(codes[0]!.line).toBe('E10001: Value [Ascend999] for parameter [--soc_version] is invalid. Reason: unknown SoC.');
    expect(codes[0]!.hint).toContain('argument value is invalid');
  });

  it('falls back to the family hint, and finds nothing in clean output', () => {
    expect(hintFor('E13014')).toContain('set_env.sh');
    expect(hintFor('E16042')).toContain('ONNX model problem');
    expect(hintFor('E99999')).toContain('CANN error-code reference');
    expect(findErrorCodes('ATC run success, welcome to the next use.\nE1000 is not a code; neither is XE10001Y')).toEqual([]);
  });
});
