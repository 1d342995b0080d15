import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFixedConfig } from '../../../src/core/lint/write-fixed.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-fixwrite-'));
  fs.mkdirSync(path.join(root, 'repo/m'), { recursive: true });
  fs.mkdirSync(path.join(root, 'elsewhere'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('writeFixedConfig (validate --fix)', () => {
  it('replaces the file by a rename (a new inode, no temporary file left), keeping its mode', () => {
    const file = path.join(root, 'repo/m/config.pbtxt');
    fs.writeFileSync(file, 'old', { mode: 0o640 });
    const before = fs.statSync(file).ino;
    expect(writeFixedConfig(file, 'new', path.join(root, 'repo'))).toEqual({ ok: true });
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).ino).not.toBe(before);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.readdirSync(path.join(root, 'repo/m'))).toEqual(['config.pbtxt']);
  });

  it('refuses a config that is a symlink out of the repository and leaves the target alone', () => {
    const outside = path.join(root, 'elsewhere/config.pbtxt');
    fs.writeFileSync(outside, 'outside');
    const link = path.join(root, 'repo/m/config.pbtxt');
    fs.symlinkSync(outside, link);
    const outcome = writeFixedConfig(link, 'new', path.join(root, 'repo'));
    expect(outcome).toEqual({ ok: false, reason: 'it is a symlink out of the repository; gebe does not write there' });
    expect(fs.readFileSync(outside, 'utf8')).toBe('outside');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('writes a symlink inside the repository at its target and keeps the link', () => {
    const shared = path.join(root, 'repo/shared.pbtxt');
    fs.writeFileSync(shared, 'old');
    const link = path.join(root, 'repo/m/config.pbtxt');
    fs.symlinkSync('../shared.pbtxt', link);
    expect(writeFixedConfig(link, 'new', path.join(root, 'repo'))).toEqual({ ok: true });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(shared, 'utf8')).toBe('new');
  });
});
