import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { intervalsRate, MAX_REQUEST_INTERVALS, readRequestIntervals } from '../../../src/core/perf/request-intervals.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gebe-perf-intervals-'));
let files = 0;

function file(text: string): string {
  const f = path.join(dir, `intervals-${files++}.txt`);
  writeFileSync(f, text);
  return f;
}

function usage(f: string): string {
  try { readRequestIntervals(f); } catch (err) { expect(err).toBeInstanceOf(UsageError); return (err as Error).message; }
  throw new Error('expected a UsageError');
}

describe('readRequestIntervals', () => {
  it('reads one interval (µs) a line, with CRLF, spaces, blank lines and a final newline', () => {
    expect(readRequestIntervals(file('1000\r\n 2000 \n\n0\n1.5\n'))).toEqual([1000, 2000, 0, 1.5]);
  });

  it('names the file and the line of a value that is not a number, or is negative, or is over an hour', () => {
    const notNumber = file('1000\n1e3\n');
    expect(usage(notNumber)).toBe(`--request-intervals ${notNumber}:2: "1e3" is not a number of microseconds; write one interval per line, e.g. 1000`);
    const words = file('100\n\nten\n');
    expect(usage(words)).toBe(`--request-intervals ${words}:3: "ten" is not a number of microseconds; write one interval per line, e.g. 1000`);
    const negative = file('5\n-20\n');
    expect(usage(negative)).toBe(`--request-intervals ${negative}:2: -20 is negative; an interval is the time from one request to the next, 0 µs or more`);
    const long = file('3600000001\n');
    expect(usage(long)).toBe(`--request-intervals ${long}:1: 3600000001 µs is more than an hour (3600000000 µs), gebe perf's limit; a measurement window would see no request`);
  });

  it('refuses an empty file, a list of zeros, a missing file and a folder, saying what to give', () => {
    const empty = file('\n  \n');
    expect(usage(empty)).toBe(`--request-intervals ${empty}: the file has no intervals; write a text file with the time between requests in microseconds, one per line, e.g. 1000`);
    const zeros = file('0\n0\n');
    expect(usage(zeros)).toBe(`--request-intervals ${zeros}: every interval is 0, which paces nothing; give at least one interval above 0 µs`);
    const missing = path.join(dir, 'none.txt');
    expect(usage(missing)).toBe(`--request-intervals ${missing}: file not found; give a text file with the time between requests in microseconds, one per line, e.g. 1000`);
    const folder = path.join(dir, 'folder');
    mkdirSync(folder);
    expect(usage(folder)).toContain(`--request-intervals ${folder}: is a folder; give a text file`);
  });

  it(`stops at ${MAX_REQUEST_INTERVALS} intervals, naming the first line past them`, () => {
    const many = file('1\n'.repeat(MAX_REQUEST_INTERVALS + 1));
    expect(usage(many)).toBe(`--request-intervals ${many}:${MAX_REQUEST_INTERVALS + 1}: more than ${MAX_REQUEST_INTERVALS} intervals, gebe perf's limit; the list is cycled, so one period of the pattern is enough: shorten it`);
    expect(readRequestIntervals(file('1\n'.repeat(MAX_REQUEST_INTERVALS)))).toHaveLength(MAX_REQUEST_INTERVALS);
  });
});

describe('intervalsRate', () => {
  it('is the request rate the intervals make, as perf_analyzer reports custom intervals', () => {
    expect(intervalsRate([1000, 3000])).toBe(500);
    expect(intervalsRate([0, 0, 3000])).toBe(1000);
    expect(intervalsRate([3000, 3000, 3000])).toBe(333.333333);
  });
});
