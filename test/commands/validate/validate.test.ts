/**
 * `gebe validate` end to end: real fixture repositories copied to temporary directories, driven
 * through runValidate with fake IO and through the CLI's main() for exit codes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { toValidateOptions, type ValidateFlags } from '../../../src/commands/validate/options.js';
import { runValidate } from '../../../src/commands/validate/run.js';
import { memoryIO, type IO } from '../../../src/io.js';

const fixtures = path.resolve(import.meta.dirname, '..', '..', '..', 'fixtures');
let cwd: string;

beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-validate-'));
  fs.cpSync(path.join(fixtures, 'model_repository'), path.join(cwd, 'model_repository'), { recursive: true });
  fs.cpSync(path.join(fixtures, 'repositories', 'broken'), path.join(cwd, 'broken'), { recursive: true });
});
afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

async function validate(paths: string[], flags: ValidateFlags = {}, io: Partial<IO> = {}) {
  const mem = memoryIO({ cwd, ...io });
  const code = await runValidate(toValidateOptions(paths, flags), mem);
  return { code, out: mem.out(), err: mem.err() };
}

interface Json {
  diagnostics: Array<{ file: string; line: number; column: number; ruleId: string; severity: string; message: string }>;
  summary: { errors: number; warnings: number; infos: number; models: number; files: number };
}

async function validateJson(paths: string[], flags: ValidateFlags = {}) {
  const r = await validate(paths, { ...flags, format: 'json' });
  return { code: r.code, json: JSON.parse(r.out) as Json };
}

function write(rel: string, content: string | Buffer): void {
  const file = path.join(cwd, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

describe('gebe validate --model-config-name (what tritonserver --model-config-name loads)', () => {
  it('lints each model\'s configs/<name>.pbtxt where it has one, and its config.pbtxt otherwise', async () => {
    const config = fs.readFileSync(path.join(cwd, 'model_repository', 'digits_linear', 'config.pbtxt'), 'utf8');
    write('model_repository/digits_linear/configs/ascend310p.pbtxt', config.replace(/max_batch_size: \d+/, 'max_batch_size: -2'));
    const named = await validateJson(['model_repository'], { modelConfigName: 'other' });
    const custom = await validateJson(['model_repository'], { modelConfigName: 'ascend310p' });
    expect(custom.code).toBe(1);
    expect(custom.json.diagnostics).toContainEqual(expect.objectContaining({ file: 'model_repository/digits_linear/configs/ascend310p.pbtxt', ruleId: 'MAX_BATCH_SIZE_NEGATIVE', severity: 'error' }));
    // A name without a custom config of that name: config.pbtxt, as the server falls back to it;
    // and with a name, the other custom configs are not the server's, so not linted.
    expect(named.json.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(await main(['node', 'gebe', 'validate', 'model_repository', '--model-config-name', '../x'], memoryIO({ cwd }))).toBe(2);
  });
});

describe('gebe validate without --model-config-name', () => {
  it('lints every custom config too, in its model\'s directory, naming its file; the model counts once', async () => {
    const config = fs.readFileSync(path.join(cwd, 'model_repository', 'digits_linear', 'config.pbtxt'), 'utf8');
    const before = await validateJson(['model_repository']);
    write('model_repository/digits_linear/configs/ascend310p.pbtxt', config.replace(/max_batch_size: \d+/, 'max_batch_size: -2'));
    // A custom config of another name is checked in the model directory as config.pbtxt is (its name must match it).
    write('model_repository/digits_linear/configs/ascend910b.pbtxt', config.replace(/name: "digits_linear"/, 'name: "other"'));
    write('model_repository/digits_linear/configs/notes.txt', 'not a config');
    const { code, json } = await validateJson(['model_repository']);
    expect(code).toBe(1);
    const errors = json.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.file, d.ruleId]);
    expect(errors).toContainEqual(['model_repository/digits_linear/configs/ascend310p.pbtxt', 'MAX_BATCH_SIZE_NEGATIVE']);
    expect(errors).toContainEqual(['model_repository/digits_linear/configs/ascend910b.pbtxt', 'MODEL_NAME_MISMATCH']);
    expect(errors.every(([file]) => file!.includes('/configs/'))).toBe(true);
    expect(json.summary.models).toBe(before.json.summary.models);
    expect(json.summary.files).toBe(before.json.summary.files + 2);
    // The model's own findings are not repeated for each of its configs.
    const keys = json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}:${d.ruleId}:${d.message}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('gebe validate', () => {
  it('reports a 2 MB config of 1e6 \\x escapes or 1e6 nested lists as findings, not an internal error', async () => {
    write('esc/config.pbtxt', `name: "${'\\x'.repeat(1_000_000)}"\n`);
    write('nest/config.pbtxt', `dims: ${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}\n`);
    for (const dir of ['esc', 'nest']) {
      const text = await validate([`${dir}/config.pbtxt`]);
      expect(text.code).toBe(1);
      expect(text.out.length).toBeLessThan(100_000);
      expect(text.out).toMatch(/more problems not shown/);
      const { code, json } = await validateJson([`${dir}/config.pbtxt`]);
      expect(code).toBe(1);
      expect(json.diagnostics.length).toBeGreaterThan(50);
    }
  });

  it('passes the bundled example repository with zero findings (default path ./model_repository)', async () => {
    const r = await validate([]);
    // Other tracks add models to the example repository: any number of them must pass.
    expect(r.out).toMatch(/^✔ no problems \(\d+ models?, \d+ config files? checked\)\n$/);
    expect(r.code).toBe(0);
  });

  it('reports the broken repository: text with code frames and fixes, exit 1', async () => {
    const r = await validate(['broken']);
    expect(r.code).toBe(1);
    expect(r.out).toContain([
      'broken/digits_batch_dims/config.pbtxt:8:11 error DIMS_INCLUDE_BATCH dims [1, 1, 28, 28] of model input \'image\' include the batch dimension: the model\'s input has rank 4 [batch, 1, 28, 28], and with max_batch_size 8 Triton prepends the batch, expecting [-1, 1, 1, 28, 28]',
      '  7 |     data_type: TYPE_FP32',
      '> 8 |     dims: [ 1, 1, 28, 28 ]',
      '    |           ^^^^^^^^^^^^^^^^',
      '  fix (--fix applies it): drop the first dim: dims: [ 1, 28, 28 ]',
    ].join('\n'));
    expect(r.out).toContain("broken/om_only/1/model.om:1:1 error GE_OM_ONLY version directory broken/om_only/1 holds only model.om: Triton's GE backend loads .onnx or .pb models, not .om offline models (gebe serve can run an .om with its ascend engine)");
    expect(r.out).toMatch(/✖ 9 problems \(8 errors, 1 warning, 0 infos\) in 4 models, 4 config files checked\n$/);
    expect(r.out).not.toMatch(/\u001b\[/);
  });

  it('prints the JSON shape with paths as given joined with the file inside', async () => {
    const { code, json } = await validateJson(['broken']);
    expect(code).toBe(1);
    expect(json.summary).toEqual({ errors: 8, warnings: 1, infos: 0, models: 4, files: 4 });
    expect(json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.ruleId}`)).toEqual([
      'broken/digits_batch_dims/config.pbtxt:8:11 DIMS_INCLUDE_BATCH',
      'broken/digits_batch_dims/config.pbtxt:13:11 MODEL_TENSOR_UNKNOWN',
      'broken/om_only/1/model.om:1:1 GE_OM_ONLY',
      'broken/typo_comment/config.pbtxt:1:7 SYNTAX_TYPOGRAPHIC_QUOTE',
      'broken/typo_comment/config.pbtxt:1:20 SYNTAX_TYPOGRAPHIC_QUOTE',
      'broken/typo_comment/config.pbtxt:2:1 SYNTAX_SLASH_COMMENT',
      'broken/wrong_name:1:1 VERSION_MISSING',
      'broken/wrong_name/01:1:1 VERSION_DIR_INVALID',
      'broken/wrong_name/config.pbtxt:1:7 MODEL_NAME_MISMATCH',
    ]);
  });

  it('checks a config.pbtxt given alone with syntax and config rules only', async () => {
    const { code, json } = await validateJson(['broken/wrong_name/config.pbtxt']);
    expect(json.diagnostics).toEqual([]);
    expect(json.summary).toMatchObject({ models: 1, files: 1 });
    expect(code).toBe(0);
  });

  it('validates several paths in one run', async () => {
    const { json } = await validateJson(['model_repository', 'broken/om_only']);
    const examples = fs.readdirSync(path.join(cwd, 'model_repository')).length;
    expect(json.summary).toMatchObject({ models: examples + 1, files: examples + 1, errors: 1 });
  });

  it('applies only safe fixes with --fix, rewrites the file in place and reports what remains', async () => {
    const r = await validate(['broken/typo_comment'], { fix: true });
    expect(r.err).toBe('fixed 3 problems in broken/typo_comment/config.pbtxt\n');
    expect(fs.readFileSync(path.join(cwd, 'broken/typo_comment/config.pbtxt'), 'utf8')).toBe('name: "typo_comment"\n# copied from a JSON example\nbackend: "ge"\nmax_batch_size: 0\n');
    // The syntax errors are gone; what the fix cannot solve (no model file in 1/) remains.
    expect(r.out).toContain('broken/typo_comment/1:1:1 error GE_MODEL_FILE_MISSING');
    expect(r.out).not.toContain('SYNTAX_');
    expect(r.code).toBe(1);
    // Unsafe suggestions are never applied: wrong_name's name could be fixed either way.
    const before = fs.readFileSync(path.join(cwd, 'broken/wrong_name/config.pbtxt'), 'utf8');
    await validate(['broken/wrong_name'], { fix: true });
    expect(fs.readFileSync(path.join(cwd, 'broken/wrong_name/config.pbtxt'), 'utf8')).toBe(before);
  });

  const MESSY = [
    'name: "m"', 'backend: "GE"', 'max_batch_size: 8',
    'input [ { name: "image" datatype: TYPE_FP32 dims: [ 1, 1, 28, 28 ] } ]',
    'output [ { name: "probability" data_type: FP32 dims: [ 10 ] } ]',
    'dynamic_batching { preferred_batch_sizes: [ 4, 8 ] max_queue_delay_microsecond: 100 }',
    'instance_group [ { count: 1 gpus: [ 0 ] } ]', '',
  ].join('\n');
  const FIXED = [
    'name: "m"', 'backend: "ge"', 'max_batch_size: 8',
    'input [ { name: "image" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] } ]',
    'output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    'dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }',
    'instance_group [ { count: 1 } ]', '',
  ].join('\n');

  function writeMessy(): string {
    fs.cpSync(path.join(cwd, 'broken', 'digits_batch_dims', '1'), path.join(cwd, 'messy', 'm', '1'), { recursive: true });
    write('messy/m/config.pbtxt', MESSY);
    fs.chmodSync(path.join(cwd, 'messy/m/config.pbtxt'), 0o640);
    return path.join(cwd, 'messy/m/config.pbtxt');
  }

  it('applies every fix that cannot change meaning, over several passes, and writes the file atomically', async () => {
    const file = writeMessy();
    const r = await validate(['messy'], { fix: true });
    expect(r.err).toBe('fixed 8 problems in messy/m/config.pbtxt\n');
    expect(fs.readFileSync(file, 'utf8')).toBe(FIXED);
    expect(r.out).toMatch(/^✔ no problems/);
    expect(r.code).toBe(0);
    // Written through a temporary file and a rename: nothing is left beside it, and the mode is kept.
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['1', 'config.pbtxt']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });

  it('prints the fixes as a git-style unified diff with --fix-dry-run, writes nothing, and exits as validate would', async () => {
    const file = writeMessy();
    const r = await validate(['messy'], { fixDryRun: true });
    expect(fs.readFileSync(file, 'utf8')).toBe(MESSY);
    expect(r.code).toBe(1);
    expect(r.out.split('\n').slice(0, 4)).toEqual([
      'diff --git a/messy/m/config.pbtxt b/messy/m/config.pbtxt',
      '--- a/messy/m/config.pbtxt',
      '+++ b/messy/m/config.pbtxt',
      '@@ -1,7 +1,7 @@',
    ]);
    expect(r.out).toContain('-backend: "GE"\n+backend: "ge"\n');
    expect(r.out).toContain(' max_batch_size: 8\n');
    expect(r.err).toBe('--fix would fix 8 problems in 1 file; 0 problems would remain\n');
    // The diff applies with git to give what --fix writes.
    fs.writeFileSync(path.join(cwd, 'fix.patch'), r.out);
    execFileSync('git', ['apply', 'fix.patch'], { cwd });
    expect(fs.readFileSync(file, 'utf8')).toBe(FIXED);
    // Nothing to fix: no diff, exit as validate.
    const clean = await validate(['messy'], { fixDryRun: true });
    expect(clean).toMatchObject({ code: 0, out: '' });
    expect(clean.err).toContain('no safe fixes to apply');
  });

  it('refuses --fix with --fix-dry-run, and --fix-dry-run with another --format (exit 2)', async () => {
    expect(await main(['node', 'gebe', 'validate', 'broken', '--fix', '--fix-dry-run'], memoryIO({ cwd }))).toBe(2);
    expect(await main(['node', 'gebe', 'validate', 'broken', '--fix-dry-run', '--format', 'json'], memoryIO({ cwd }))).toBe(2);
  });

  it('makes warnings fail with --strict', async () => {
    write('warn/m/config.pbtxt', 'name: "m"\nbackend: "ge"\nmax_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 8 ] }\n');
    write('warn/m/1/model.pb', 'graph');
    expect((await validate(['warn'])).code).toBe(0);
    expect((await validate(['warn'], { strict: true })).code).toBe(1);
  });

  it('changes severities with --rule', async () => {
    const off = await validateJson(['broken'], { rule: ['DIMS_INCLUDE_BATCH=off', 'VERSION_DIR_INVALID=error', 'SYNTAX_SLASH_COMMENT=info'] });
    const ids = off.json.diagnostics.map((d) => `${d.ruleId}:${d.severity}`);
    expect(ids).not.toContain('DIMS_INCLUDE_BATCH:error');
    expect(ids).toContain('VERSION_DIR_INVALID:error');
    expect(ids).toContain('SYNTAX_SLASH_COMMENT:info');
  });

  it('honours # gebe-ignore on the line, on the line before, and for findings about other files', async () => {
    const config = fs.readFileSync(path.join(cwd, 'broken/digits_batch_dims/config.pbtxt'), 'utf8')
      .replace('    dims: [ 1, 1, 28, 28 ]', '    dims: [ 1, 1, 28, 28 ]  # gebe-ignore DIMS_INCLUDE_BATCH')
      .replace('    name: "probability"', '    # gebe-ignore MODEL_TENSOR_UNKNOWN, MODEL_DATA_TYPE_MISMATCH\n    name: "probability"');
    write('broken/digits_batch_dims/config.pbtxt', config);
    write('broken/om_only/config.pbtxt', 'name: "om_only"\nbackend: "ge"\nmax_batch_size: 4\n# gebe-ignore GE_OM_ONLY: served by gebe serve\n');
    const { json } = await validateJson(['broken/digits_batch_dims', 'broken/om_only']);
    // Only the comment's second id is stale: the outputs' data type matches the model.
    expect(json.diagnostics.map((d) => `${d.line} ${d.ruleId} ${d.message}`)).toEqual([
      '13 SUPPRESSION_UNUSED # gebe-ignore MODEL_DATA_TYPE_MISMATCH silences nothing: MODEL_DATA_TYPE_MISMATCH reports no finding on this line or the next',
    ]);
    // A suppression names a rule: others on the same line still report.
    write('broken/om_only/config.pbtxt', 'name: "om_only"\nbackend: "ge"\nmax_batch_size: -4  # gebe-ignore GE_OM_ONLY\n');
    const again = await validateJson(['broken/om_only']);
    expect(again.json.diagnostics.map((d) => d.ruleId)).toEqual(['MAX_BATCH_SIZE_NEGATIVE']);
  });

  it('colours text on a terminal, and not with NO_COLOR', async () => {
    expect((await validate(['broken'], {}, { stdoutIsTTY: true })).out).toMatch(/\u001b\[31merror/);
    expect((await validate(['broken'], {}, { stdoutIsTTY: true, env: { NO_COLOR: '1' } })).out).not.toMatch(/\u001b\[/);
  });

  it('prints every other format from the same findings', async () => {
    const sarif = JSON.parse((await validate(['broken'], { format: 'sarif' })).out);
    expect(sarif.runs[0].results).toHaveLength(9);
    const github = (await validate(['broken'], { format: 'github' })).out;
    expect(github.split('\n').filter((l) => l.startsWith('::'))).toHaveLength(9);
    const junit = (await validate(['broken'], { format: 'junit' })).out;
    expect(junit).toContain('failures="8"');
  });

  it('never crashes on bad input: binary, 50 MB, non-UTF-8 configs, symlink loops, FIFOs, broken models', async () => {
    write('bad/binary/config.pbtxt', Buffer.from([0x0a, 0x04, 0x00, 0x6d, 0xff, 0xfe]));
    write('bad/binary/1/model.pb', 'x');
    write('bad/huge/config.pbtxt', '');
    fs.truncateSync(path.join(cwd, 'bad/huge/config.pbtxt'), 50 * 1024 * 1024);
    write('bad/huge/1/model.pb', 'x');
    write('bad/latin1/config.pbtxt', Buffer.concat([Buffer.from('name: "latin1"\nbackend: "ge"\n# r'), Buffer.from([0xe9, 0x73, 0x75, 0x6d, 0xe9, 0x0a])]));
    write('bad/latin1/1/model.pb', 'x');
    write('bad/loop/config.pbtxt', 'name: "loop"\nbackend: "ge"\n');
    write('bad/loop/1/model.pb', 'x');
    fs.symlinkSync('..', path.join(cwd, 'bad/loop/1/back'));
    fs.symlinkSync('loop', path.join(cwd, 'bad/loop/1/loop'));
    write('bad/unreadable_onnx/config.pbtxt', 'name: "unreadable_onnx"\nbackend: "ge"\n');
    write('bad/unreadable_onnx/1/model.onnx', Buffer.from('\u0000\u0001garbage'));
    // FIFOs would block a plain read forever.
    write('bad/fifo/1/.keep', '');
    execFileSync('mkfifo', [path.join(cwd, 'bad/fifo/config.pbtxt'), path.join(cwd, 'bad/fifo/1/model.onnx')]);
    const { code, json } = await validateJson(['bad']);
    expect(code).toBe(1);
    expect(json.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.ruleId}`)).toEqual([
      'bad/binary/config.pbtxt:1:1 CONFIG_NOT_TEXT',
      'bad/fifo/1/model.onnx:1:1 MODEL_FILE_INVALID',
      'bad/fifo/config.pbtxt:1:1 FILE_UNREADABLE',
      'bad/huge/config.pbtxt:1:1 CONFIG_TOO_LARGE',
      'bad/latin1/config.pbtxt:3:4 CONFIG_NOT_UTF8',
      'bad/loop/1/back:1:1 SYMLINK_LOOP',
      'bad/loop/1/loop:1:1 SYMLINK_LOOP',
      'bad/unreadable_onnx/1/model.onnx:1:1 MODEL_FILE_INVALID',
    ]);
  });
});

describe('gebe validate through the CLI', () => {
  it('maps findings to exit 1, a clean repository to 0, and usage errors to 2', async () => {
    const run = async (...args: string[]) => {
      const io = memoryIO({ cwd });
      const code = await main(['node', 'gebe', 'validate', ...args], io);
      return { code, out: io.out(), err: io.err() };
    };
    expect((await run('model_repository')).code).toBe(0);
    expect((await run('broken', '--format', 'json')).code).toBe(1);
    const missing = await run('no_such_repo');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('error: no_such_repo does not exist');
    const badRule = await run('broken', '--rule', 'DIMS_INCLUDE_BATCHES=off');
    expect(badRule.code).toBe(2);
    expect(badRule.err).toContain('--rule names unknown rule DIMS_INCLUDE_BATCHES');
    expect(badRule.err).toContain('did you mean DIMS_INCLUDE_BATCH?');
    const badFormat = await run('broken', '--format', 'xml');
    expect(badFormat.code).toBe(2);
  });
});
