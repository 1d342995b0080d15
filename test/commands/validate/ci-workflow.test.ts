/**
 * The GitHub Actions example in docs/ci.md: parsed as YAML, it has the shape GitHub needs to
 * upload SARIF and annotate pull requests, and every `gebe` command in it parses with gebe's own
 * option parser (a renamed flag fails here, not in a user's CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../../../src/cli.js';
import { toValidateOptions, type ValidateFlags } from '../../../src/commands/validate/options.js';
import { memoryIO } from '../../../src/io.js';

const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/ci.md'), 'utf8');
const section = doc.slice(doc.indexOf('## GitHub Actions'));
const block = /```yaml\n([^]*?)```/.exec(section)?.[1];

interface Step { uses?: string; run?: string; with?: Record<string, unknown>; if?: string; name?: string }
interface Workflow { on: Record<string, unknown>; jobs: Record<string, { 'runs-on': string; permissions?: Record<string, string>; steps: Step[] }> }

describe('docs/ci.md GitHub Actions example', () => {
  const workflow = parse(block ?? '') as Workflow;
  const job = Object.values(workflow.jobs ?? {})[0]!;

  it('is a workflow that runs on pull requests', () => {
    expect(block).toBeDefined();
    expect(Object.keys(workflow.on)).toContain('pull_request');
    expect(Object.keys(workflow.jobs)).toHaveLength(1);
    expect(job['runs-on']).toBe('ubuntu-latest');
  });

  it('checks out the full history (--against reads the base branch) and may upload code-scanning results', () => {
    const checkout = job.steps.find((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with?.['fetch-depth']).toBe(0);
    expect(job.permissions?.['security-events']).toBe('write');
  });

  it('writes SARIF and uploads it even when validate fails', () => {
    const sarifRun = job.steps.findIndex((s) => s.run?.includes('--format sarif > gebe.sarif'));
    const upload = job.steps.findIndex((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'));
    expect(sarifRun).toBeGreaterThanOrEqual(0);
    expect(upload).toBeGreaterThan(sarifRun);
    expect(job.steps[upload]!.with?.sarif_file).toBe('gebe.sarif');
    expect(job.steps[upload]!.if).toMatch(/always\(\)/);
    expect(job.steps.some((s) => s.run?.includes('--format github'))).toBe(true);
  });

  it('uses only gebe options that exist', () => {
    const commands = job.steps.flatMap((s) => (s.run?.startsWith('npx gebe ') ? [s.run] : []));
    expect(commands.length).toBeGreaterThanOrEqual(2);
    for (const command of commands) {
      const args = command.replace(/\$\{\{[^}]*\}\}/g, 'main').replace(/\s*>\s*\S+$/, '').split(/\s+/).slice(2);
      expect(args[0]).toBe('validate');
      const program = buildProgram({ io: memoryIO(), setExitCode: () => {} });
      const validate = program.commands.find((c) => c.name() === 'validate')!;
      const { operands, unknown } = validate.parseOptions(args.slice(1));
      expect(unknown, command).toEqual([]);
      const opts = toValidateOptions(operands, validate.opts() as ValidateFlags);
      expect(opts.against).toBe('origin/main');
      expect(['sarif', 'github']).toContain(opts.format);
    }
  });
});
