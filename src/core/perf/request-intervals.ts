/**
 * perf_analyzer's --request-intervals file: the time from one request to the next in microseconds,
 * one per line, cycled for as long as a setting runs. Read once, before anything is sent; a bad
 * line is a UsageError naming the file and the line, with the fix.
 */
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { roundLevel } from './ranges.js';

/** Intervals one file may hold: every driver keeps the list (a worker thread its own copy). */
export const MAX_REQUEST_INTERVALS = 1_000_000;
/** Bytes read at most: MAX_REQUEST_INTERVALS lines of up to 32 characters. */
const MAX_FILE_BYTES = 32 * MAX_REQUEST_INTERVALS;
/** The longest interval: past an hour a measurement window would see no request at all. */
export const MAX_INTERVAL_US = 3_600_000_000;

const FORMAT = 'a text file with the time between requests in microseconds, one per line, e.g. 1000';

function readText(file: string): string {
  const where = `--request-intervals ${file}`;
  let size: number;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new UsageError(`${where}: is a folder; give ${FORMAT}`);
    size = stat.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${where}: ${code === 'ENOENT' ? 'file not found' : (err as Error).message}; give ${FORMAT}`);
  }
  if (size > MAX_FILE_BYTES) {
    throw new UsageError(`${where}: the file is ${size} bytes, more than gebe perf reads (${MAX_FILE_BYTES} bytes, ${MAX_REQUEST_INTERVALS} intervals); the list is cycled, so one period of the pattern is enough: shorten it`);
  }
  return readFileSync(file, 'utf8');
}

/** The intervals (µs) of an --request-intervals file; blank lines are skipped. */
export function readRequestIntervals(file: string): number[] {
  const lines = readText(file).split(/\r?\n/);
  const intervals: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (text === '') continue;
    const at = `--request-intervals ${file}:${i + 1}`;
    if (intervals.length === MAX_REQUEST_INTERVALS) {
      throw new UsageError(`${at}: more than ${MAX_REQUEST_INTERVALS} intervals, gebe perf's limit; the list is cycled, so one period of the pattern is enough: shorten it`);
    }
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    if (!/^[+-]?\d+(\.\d+)?$/.test(text)) throw new UsageError(`${at}: "${shown}" is not a number of microseconds; write one interval per line, e.g. 1000`);
    const us = Number(text);
    if (us < 0) throw new UsageError(`${at}: ${shown} is negative; an interval is the time from one request to the next, 0 µs or more`);
    if (us > MAX_INTERVAL_US) throw new UsageError(`${at}: ${shown} µs is more than an hour (${MAX_INTERVAL_US} µs), gebe perf's limit; a measurement window would see no request`);
    intervals.push(us);
  }
  if (intervals.length === 0) throw new UsageError(`--request-intervals ${file}: the file has no intervals; write ${FORMAT}`);
  if (intervals.every((us) => us === 0)) {
    throw new UsageError(`--request-intervals ${file}: every interval is 0, which paces nothing; give at least one interval above 0 µs`);
  }
  return intervals;
}

/** The request rate (req/s) a list of intervals makes: perf_analyzer reports custom intervals as this rate. */
export function intervalsRate(intervalsUs: readonly number[]): number {
  return roundLevel((intervalsUs.length * 1_000_000) / intervalsUs.reduce((a, b) => a + b, 0));
}
