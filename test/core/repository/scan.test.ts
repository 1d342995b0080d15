import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { nodeFileSystem, type ScanFileSystem } from '../../../src/core/repository/fs.js';
import { MAX_CONFIG_BYTES } from '../../../src/core/repository/read-config.js';
import { scanTarget } from '../../../src/core/repository/scan.js';
import { isVersionName, selectVersions } from '../../../src/core/repository/versions.js';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-scan-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function write(rel: string, content: string | Buffer = ''): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

describe('scanTarget', () => {
  it('scans a repository: models, numeric version order, skipped and special folders, files', () => {
    write('repo/a/config.pbtxt', 'name: "a"');
    for (const v of ['1', '2', '10']) write(`repo/a/${v}/model.onnx`, 'x');
    write('repo/a/01/model.onnx');
    write('repo/a/v2/model.onnx');
    write('repo/a/warmup/input.bin');
    write('repo/a/initial_state/state.bin');
    write('repo/a/configs/h100.pbtxt');
    write('repo/a/.git/HEAD');
    write('repo/a/1/sub/extra.onnx');
    write('repo/b/config.pbtxt', 'name: "b"');
    write('repo/README.md', 'not a model');
    const t = scanTarget('repo', root);
    expect(t.kind).toBe('repository');
    expect(t.models.map((m) => m.name)).toEqual(['a', 'b']);
    const a = t.models[0]!;
    expect(a.display).toBe('repo/a');
    expect(a.config?.display).toBe('repo/a/config.pbtxt');
    expect(a.config?.text).toBe('name: "a"');
    expect(a.versions.map((v) => v.name)).toEqual(['1', '2', '10']);
    expect(a.versions[0]!.files).toEqual(['model.onnx', 'sub/extra.onnx']);
    expect(a.versions[0]!.display).toBe('repo/a/1');
    expect(a.skipped.map((s) => [s.name, s.reason])).toEqual([
      ['01', 'version directory names must not have leading zeros'],
      ['v2', 'version directory names must be non-negative integers'],
    ]);
    expect(a.warmupFiles).toEqual(['input.bin']);
    expect(t.models[1]!.versions).toEqual([]);
    expect(t.problems).toEqual([]);
  });

  it('treats a directory with config.pbtxt or version folders as one model, and a file as a config alone', () => {
    write('m/config.pbtxt', 'name: "m"');
    expect(scanTarget('m', root)).toMatchObject({ kind: 'model', models: [{ name: 'm', display: 'm' }] });
    write('noconfig/1/model.onnx');
    const t = scanTarget('noconfig', root);
    expect(t.kind).toBe('model');
    expect(t.models[0]!.config).toBeUndefined();
    expect(scanTarget('m/config.pbtxt', root)).toMatchObject({ kind: 'config', models: [], config: { display: 'm/config.pbtxt', text: 'name: "m"' } });
  });

  it('throws a UsageError for a path that does not exist', () => {
    expect(() => scanTarget('missing_repo', root)).toThrow(UsageError);
    expect(() => scanTarget('missing_repo', root)).toThrow('missing_repo does not exist');
  });

  it('reports binary, oversized and non-UTF-8 configs instead of reading them as text', () => {
    write('bin/config.pbtxt', Buffer.from([0x08, 0x00, 0x12, 0x03]));
    write('utf/config.pbtxt', Buffer.concat([Buffer.from('name: "x"\n# caf'), Buffer.from([0xe9, 0x0a])]));
    write('big/config.pbtxt');
    fs.truncateSync(path.join(root, 'big/config.pbtxt'), 50 * 1024 * 1024); // a 50 MB (sparse) file
    const bin = scanTarget('bin', root);
    expect(bin.problems).toMatchObject([{ kind: 'binary', display: 'bin/config.pbtxt' }]);
    expect(bin.models[0]!.config?.text).toBeUndefined();
    const big = scanTarget('big', root);
    expect(big.problems).toMatchObject([{ kind: 'too-large', message: expect.stringContaining('50.0 MiB') }]);
    expect(50 * 1024 * 1024).toBeGreaterThan(MAX_CONFIG_BYTES);
    const utf = scanTarget('utf', root).models[0]!.config!;
    expect(utf.invalidUtf8).toEqual({ line: 2, column: 6, offset: 15 });
    expect(utf.text).toBe('name: "x"\n# caf\ufffd\n');
  });

  it('does not follow a directory symlink out of the repository: a link to / is reported, not searched', () => {
    write('repo/m/config.pbtxt', 'name: "m"');
    write('repo/m/1/model.onnx');
    fs.symlinkSync('/', path.join(root, 'repo/m/1/root'));
    fs.symlinkSync('/', path.join(root, 'repo/everything'));
    const t = scanTarget('repo', root);
    expect(t.problems.map((p) => [p.kind, p.display]).sort()).toEqual([
      ['symlink-loop', 'repo/everything'],
      ['symlink-outside', 'repo/m/1/root'],
    ]);
    expect(t.problems.every((p) => !p.message.includes('/proc'))).toBe(true);
    expect(t.models.find((m) => m.name === 'm')!.files).toEqual(['1/model.onnx', 'config.pbtxt']);
  });

  it('reports a real 1,000-level directory tree as a depth limit, not a symlink loop', () => {
    write('m/config.pbtxt', 'name: "m"');
    const deep = path.join(root, 'm/1', ...Array.from({ length: 1000 }, () => 'd'));
    fs.mkdirSync(deep, { recursive: true });
    const t = scanTarget('m', root);
    expect(t.problems.map((p) => p.kind)).toEqual(['walk-limit']);
    expect(t.problems[0]!.message).toMatch(/more than 32 directory levels deep/);
  });

  it('stops a model directory search after 100,000 entries', () => {
    write('m/config.pbtxt', 'name: "m"');
    // A stand-in file system: one directory that lists 200,000 files, each name made up.
    const entries = Array.from({ length: 200_000 }, (_, i) => ({ name: `f${i}`, isDirectory: () => false, isSymbolicLink: () => false }));
    const big: ScanFileSystem = { ...nodeFileSystem, readdir: (p) => (p.endsWith(`${path.sep}1`) ? (entries as unknown as fs.Dirent[]) : nodeFileSystem.readdir(p)) };
    write('m/1/model.onnx');
    const t = scanTarget('m', root, { fs: big });
    expect(t.problems.map((p) => p.kind)).toEqual(['walk-limit']);
    expect(t.models[0]!.files.length).toBeLessThanOrEqual(100_000);
  });

  it('reports symlink loops and dangling links without following them forever', () => {
    write('m/config.pbtxt', 'name: "m"');
    write('m/1/model.onnx');
    fs.symlinkSync('..', path.join(root, 'm/1/up'));
    fs.symlinkSync('self', path.join(root, 'm/1/self'));
    fs.symlinkSync('nowhere', path.join(root, 'm/1/dangling'));
    const t = scanTarget('m', root);
    expect(t.problems.map((p) => [p.kind, p.display]).sort()).toEqual([
      ['symlink-loop', 'm/1/self'],
      ['symlink-loop', 'm/1/up'],
      ['unreadable', 'm/1/dangling'],
    ]);
    expect(t.models[0]!.versions[0]!.files).toEqual(['model.onnx']);
  });

  it('turns permission errors into problems (injected: root ignores file modes)', () => {
    write('m/config.pbtxt', 'name: "m"');
    write('m/1/model.onnx');
    const denied = (p: string) => Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
    const fsDenying: ScanFileSystem = {
      ...nodeFileSystem,
      readFile: (p) => {
        if (p.endsWith('config.pbtxt')) throw denied(p);
        return nodeFileSystem.readFile(p);
      },
      readdir: (p) => {
        if (p.endsWith(`${path.sep}1`)) throw denied(p);
        return nodeFileSystem.readdir(p);
      },
    };
    const t = scanTarget('m', root, { fs: fsDenying });
    expect(t.problems.map((p) => [p.kind, p.display, p.message]).sort()).toEqual([
      ['unreadable', 'm/1', 'cannot list directory m/1: permission denied'],
      ['unreadable', 'm/config.pbtxt', 'cannot read config.pbtxt: permission denied'],
    ]);
  });

  it.skipIf(process.getuid?.() === 0)('turns a real permission error into a problem (skipped as root, which ignores file modes)', () => {
    write('m/config.pbtxt', 'name: "m"');
    fs.chmodSync(path.join(root, 'm/config.pbtxt'), 0o000);
    expect(scanTarget('m', root).problems).toMatchObject([{ kind: 'unreadable', message: 'cannot read config.pbtxt: permission denied' }]);
  });
});

describe('version directories and policy', () => {
  const versions = ['1', '2', '3', '10'].map((name) => ({ name, version: Number(name), path: name, display: name, files: [] }));

  it('accepts integers without leading zeros', () => {
    expect(['0', '1', '10', '12345'].every(isVersionName)).toBe(true);
    expect(['01', '-1', '1.0', 'v1', '', ' 1'].some(isVersionName)).toBe(false);
  });

  it('selects latest 1 by default, latest N, all, or specific versions', () => {
    expect(selectVersions(undefined, versions).selected.map((v) => v.version)).toEqual([10]);
    expect(selectVersions({ version_policy: { latest: { num_versions: 2 } } }, versions).selected.map((v) => v.version)).toEqual([3, 10]);
    expect(selectVersions({ version_policy: { all: {} } }, versions).selected).toHaveLength(4);
    const specific = selectVersions({ version_policy: { specific: { versions: [2, 7] } } }, versions);
    expect(specific.selected.map((v) => v.version)).toEqual([2]);
    expect(specific.missing).toEqual([7]);
  });
});
