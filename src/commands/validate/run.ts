/**
 * `gebe validate`: scan → lint → (--fix: apply safe fixes, re-lint) → format. Returns the exit
 * code: 0 without error-level findings, 1 with them (or with warnings under --strict).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { colorEnabled, type IO } from '../../io.js';
import { applyFixes } from '../../core/config/edits.js';
import { FORMATTERS, summarize, type LintReport } from '../../core/lint/formatters/index.js';
import { lintTargets, type LintResult } from '../../core/lint/runner.js';
import { scanTarget } from '../../core/repository/scan.js';
import { writeFixedConfig } from '../../core/lint/write-fixed.js';
import type { ValidateOptions } from './options.js';

const require = createRequire(import.meta.url);
const MAX_FIX_PASSES = 5;

function gebeVersion(): string {
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      return (require(rel) as { version: string }).version;
    } catch {
      // dist/ and src/ sit at different depths below package.json
    }
  }
  return '0.0.0';
}

function lint(opts: ValidateOptions, io: IO): LintResult {
  const targets = opts.paths.map((p) => scanTarget(p, io.cwd));
  return lintTargets(targets, { overrides: opts.rules });
}

/** The validated path (repository, model or config's folder) a fixed file must stay inside. */
function fixRoot(opts: ValidateOptions, io: IO, file: string): string {
  for (const given of opts.paths) {
    const abs = path.resolve(io.cwd, given);
    const dir = fs.statSync(abs).isDirectory() ? abs : path.dirname(abs);
    if (!path.relative(dir, file).startsWith('..')) return dir;
  }
  return path.dirname(file);
}

/** Applies safe fixes until none are left (fixes can uncover others); returns how many applied. */
function applySafeFixes(opts: ValidateOptions, io: IO): { result: LintResult; fixed: Map<string, number> } {
  const fixed = new Map<string, number>();
  let result = lint(opts, io);
  for (let pass = 0; pass < MAX_FIX_PASSES; pass++) {
    let appliedThisPass = 0;
    for (const { source } of result.configs) {
      // A file with invalid UTF-8 was decoded lossily: writing it back would destroy bytes.
      if (source.text === undefined || source.invalidUtf8) continue;
      const fixes = result.diagnostics.flatMap((d) => (d.file === source.display && d.fix?.safe && d.fix.edits.length > 0 ? [d.fix] : []));
      if (fixes.length === 0) continue;
      const { text, applied } = applyFixes(source.text, fixes);
      if (applied.length === 0 || text === source.text) continue;
      const written = writeFixedConfig(source.path, text, fixRoot(opts, io, source.path));
      if (!written.ok) {
        io.stderr.write(`not fixed: ${source.display}: ${written.reason}\n`);
        continue;
      }
      fixed.set(source.display, (fixed.get(source.display) ?? 0) + applied.length);
      appliedThisPass += applied.length;
    }
    if (appliedThisPass === 0) break;
    result = lint(opts, io);
  }
  return { result, fixed };
}

export async function runValidate(opts: ValidateOptions, io: IO): Promise<number> {
  let result: LintResult;
  if (opts.fix) {
    const outcome = applySafeFixes(opts, io);
    result = outcome.result;
    for (const [file, n] of outcome.fixed) io.stderr.write(`fixed ${n} problem${n === 1 ? '' : 's'} in ${file}\n`);
  } else {
    result = lint(opts, io);
  }
  const sources = new Map<string, string>();
  for (const { source } of result.configs) if (source.text !== undefined) sources.set(source.display, source.text);
  const report: LintReport = {
    diagnostics: result.diagnostics,
    summary: summarize(result.diagnostics, result.models, result.files),
    sources,
  };
  const color = opts.format === 'text' && colorEnabled(io, 'stdout');
  io.stdout.write(FORMATTERS[opts.format](report, { color, strict: opts.strict, version: gebeVersion() }));
  const failing = report.summary.errors > 0 || (opts.strict && report.summary.warnings > 0);
  return failing ? EXIT_FINDINGS : EXIT_OK;
}
