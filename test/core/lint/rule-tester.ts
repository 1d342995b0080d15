/**
 * Runs one rule case the way `gebe validate` would: writes the case's files to a temporary
 * directory, scans it and lints it with every rule, and returns the findings. Cases are plain data
 * (test/core/lint/rules/<ID>.cases.ts), also the source of the examples in docs/rules/<ID>.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Diagnostic } from '../../../src/core/diagnostic.js';
import { lintTargets } from '../../../src/core/lint/runner.js';
import { scanTarget } from '../../../src/core/repository/scan.js';

export interface ExpectedFinding {
  line: number;
  column: number;
  /** A fragment (or pattern) of the message. */
  message?: string | RegExp;
  /** The file, relative to the case root (default: the config file). */
  file?: string;
}

export interface RuleCase {
  /** What the case shows, for test names. */
  name?: string;
  /** The config.pbtxt text. */
  config?: string;
  /** Other files of the model directory: relative path → contents. A case with files is a model directory. */
  files?: Record<string, string | Uint8Array>;
  /** Symbolic links to create in the model directory: relative path → link target. */
  symlinks?: Record<string, string>;
  /** Lint the config file alone, a model directory, or a repository of `files` (paths then start with model names). */
  as?: 'config' | 'model' | 'repository';
  /** The model directory's name (default "m"). */
  model?: string;
  /** Expected findings of the rule under test (invalid cases). */
  errors?: ExpectedFinding[];
  /** For fixable rules: the config text after the rule's safe fixes are applied. */
  output?: string;
}

export interface RuleCases {
  valid: RuleCase[];
  invalid: RuleCase[];
}

export function caseKind(c: RuleCase): 'config' | 'model' | 'repository' {
  return c.as ?? (c.files || c.symlinks ? 'model' : 'config');
}

/** Writes the case under a fresh temporary directory; returns [cwd, path given to validate]. */
export function materialize(c: RuleCase): { cwd: string; given: string } {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-rule-'));
  const kind = caseKind(c);
  if (kind === 'config') {
    fs.writeFileSync(path.join(cwd, 'config.pbtxt'), c.config ?? '');
    return { cwd, given: 'config.pbtxt' };
  }
  const root = kind === 'model' ? (c.model ?? 'm') : 'repo';
  const dir = path.join(cwd, root);
  fs.mkdirSync(dir, { recursive: true });
  if (c.config !== undefined) {
    const configPath = kind === 'model' ? 'config.pbtxt' : `${c.model ?? 'm'}/config.pbtxt`;
    fs.mkdirSync(path.dirname(path.join(dir, configPath)), { recursive: true });
    fs.writeFileSync(path.join(dir, configPath), c.config);
  }
  for (const [rel, content] of Object.entries(c.files ?? {})) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (rel.endsWith('/')) continue; // an empty directory
    fs.writeFileSync(file, content);
  }
  for (const [rel, target] of Object.entries(c.symlinks ?? {})) {
    const link = path.join(dir, rel);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(target, link);
  }
  return { cwd, given: root };
}

export function runCase(c: RuleCase): { diagnostics: Diagnostic[]; given: string } {
  const { cwd, given } = materialize(c);
  try {
    const result = lintTargets([scanTarget(given, cwd)]);
    return { diagnostics: result.diagnostics, given };
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

/** The file a finding is expected in, as validate displays it. */
export function expectedFile(c: RuleCase, given: string, finding: ExpectedFinding): string {
  const kind = caseKind(c);
  if (kind === 'config') return finding.file ?? given;
  if (kind === 'model') return path.join(given, finding.file ?? 'config.pbtxt');
  return path.join(given, finding.file ?? `${c.model ?? 'm'}/config.pbtxt`);
}
