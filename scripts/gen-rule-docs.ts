/**
 * Writes docs/rules/<ID>.md for every rule from its metadata and its test cases: the bad example
 * is the rule's first invalid case (with what gebe prints for it), the good example its first valid
 * case. Generating the docs from the cases keeps every documented example tested; the registry test
 * fails when a page is missing or stale. Run: npx tsx scripts/gen-rule-docs.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspectOnnx } from '../src/core/model/onnx.js';
import { formatDims } from '../src/core/lint/helpers.js';
import { RULES } from '../src/core/lint/registry.js';
import type { Rule } from '../src/core/lint/rule.js';
import { ONNX_TYPE_NAMES } from '../src/core/model/onnx.js';
import { caseKind, runCase, type RuleCase, type RuleCases } from '../test/core/lint/rule-tester.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SCOPE_TEXT: Record<Rule['scope'], string> = {
  config: 'every config.pbtxt (alone or in a model directory)',
  model: 'every model directory',
  scan: 'every file and directory validate reads',
};

function describeFile(rel: string, content: string | Uint8Array): string {
  if (typeof content === 'string') {
    if (content === '') return `\`${rel}\` (empty)`;
    if (content.length > 120) return `\`${rel}\`: ${content.length.toLocaleString('en-US')} bytes of text`;
    return `\`${rel}\`: \`${JSON.stringify(content).slice(1, -1)}\``;
  }
  if (rel.endsWith('.onnx')) {
    try {
      const info = inspectOnnx(content);
      const t = (x: { name: string; elemType: number; dims?: Array<number | string | null> }) => `${x.name} ${ONNX_TYPE_NAMES[x.elemType] ?? x.elemType} ${formatDims(x.dims ?? [])}`;
      return `\`${rel}\`: an ONNX model with inputs ${info.inputs.map(t).join(', ')} and outputs ${info.outputs.map(t).join(', ')}`;
    } catch {
      return `\`${rel}\`: ${content.length} bytes that are not a valid ONNX model`;
    }
  }
  if (content.length <= 120) {
    const shown = [...content].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : b === 0x0a ? '\\n' : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
    return `\`${rel}\`: the bytes \`${shown}\``;
  }
  return `\`${rel}\`: ${content.length} bytes of binary data`;
}

function renderCase(c: RuleCase): string {
  const out: string[] = [];
  if (c.name) out.push(`${c.name[0]!.toUpperCase()}${c.name.slice(1)}:`, '');
  const kind = caseKind(c);
  if (c.config !== undefined) {
    const where = kind === 'config' ? 'config.pbtxt' : kind === 'model' ? `${c.model ?? 'm'}/config.pbtxt` : `repo/${c.model ?? 'm'}/config.pbtxt`;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000e-\u001f]/.test(c.config)) out.push(`\`${where}\` holds the bytes \`${JSON.stringify(c.config).slice(1, -1)}\``, '');
    else out.push(`\`${where}\`:`, '', '```protobuf', c.config.replace(/\n$/, ''), '```', '');
  }
  const prefix = kind === 'repository' ? 'repo/' : `${c.model ?? 'm'}/`;
  // Other models' configs read best as configs; every other file is described in one line.
  const isShownConfig = ([rel, content]: [string, string | Uint8Array]) => typeof content === 'string' && rel.endsWith('.pbtxt') && content.length <= 4000;
  const entries = Object.entries(c.files ?? {});
  for (const [rel, content] of entries.filter(isShownConfig)) {
    out.push(`\`${prefix}${rel}\`:`, '', '```protobuf', (content as string).replace(/\n$/, ''), '```', '');
  }
  const files = entries.filter((e) => !isShownConfig(e));
  if (files.length > 0) {
    out.push(entries.length > files.length ? 'Other files:' : 'Files:', '');
    for (const [rel, content] of files) out.push(`- ${describeFile(prefix + rel, content)}`);
    out.push('');
  }
  const links = Object.entries(c.symlinks ?? {});
  if (links.length > 0) {
    const prefix = kind === 'repository' ? 'repo/' : `${c.model ?? 'm'}/`;
    out.push('Symbolic links:', '');
    for (const [rel, target] of links) out.push(`- \`${prefix}${rel}\` → \`${target}\``);
    out.push('');
  }
  return out.join('\n');
}

export function renderRuleDoc(rule: Rule, cases: RuleCases): string {
  const bad = cases.invalid[0]!;
  const good = cases.valid[0]!;
  const findings = runCase(bad).diagnostics.filter((d) => d.ruleId === rule.id);
  const lines = [
    `# ${rule.id}`,
    '',
    rule.purpose,
    '',
    '| | |',
    '| --- | --- |',
    `| Default severity | ${rule.severity} |`,
    `| Fixable by \`--fix\` | ${rule.fixable ? 'yes' : 'no'} |`,
    `| Runs on | ${rule.needs === 'model-directory' ? 'every config.pbtxt in a model directory (not a config checked alone)' : rule.needs === 'repository' ? 'every config.pbtxt when a whole repository is validated' : SCOPE_TEXT[rule.scope]} |`,
    '',
    '## Bad',
    '',
    renderCase(bad),
    '`gebe validate` reports:',
    '',
    '```text',
    ...findings.map((d) => `${d.line}:${d.column} ${d.severity} ${d.ruleId} ${d.message}${d.fix ? `\n    fix: ${d.fix.description}` : ''}`),
    '```',
    '',
    '## Good',
    '',
    renderCase(good),
    '## Options',
    '',
    `Change the severity with \`--rule ${rule.id}=off|info|warning|error\`, or silence one finding with`,
    `\`# gebe-ignore ${rule.id}\` on its line or the line before (anywhere in config.pbtxt for findings about`,
    'other files of the model).',
    '',
  ];
  // Temporary directories differ per run: show the paths relative to the case.
  return lines.join('\n');
}

/** docs/rules/README.md: every rule with its severity, fixability and purpose. */
export function renderRuleIndex(rules: readonly Rule[]): string {
  const rows = [...rules].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) =>
    `| [${r.id}](${r.id}.md) | ${r.severity} | ${r.fixable ? 'yes' : ''} | ${r.purpose.replace(/\|/g, '\\|')} |`);
  return [
    '# gebe validate rules',
    '',
    `${rules.length} rules. Syntax diagnostics from the config parser have ids starting with \`SYNTAX_\`;`,
    'they are not listed here. Each page shows a bad and a good example, taken from the rule\'s tests.',
    '',
    'Change a rule\'s severity with `--rule ID=off|info|warning|error`; silence one finding with',
    '`# gebe-ignore ID` on its line or the line before. `--fix` applies the fixes marked safe.',
    '',
    '| rule | default severity | fixable | checks |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const casesDir = path.join(repoRoot, 'test', 'core', 'lint', 'rules');
  for (const rule of RULES) {
    const file = path.join(casesDir, `${rule.id}.cases.ts`);
    if (!fs.existsSync(file)) {
      console.error(`skipping ${rule.id}: no ${path.relative(repoRoot, file)}`);
      continue;
    }
    const cases = ((await import(pathToFileURL(file).href)) as { default: RuleCases }).default;
    fs.writeFileSync(path.join(repoRoot, 'docs', 'rules', `${rule.id}.md`), renderRuleDoc(rule, cases));
  }
  fs.writeFileSync(path.join(repoRoot, 'docs', 'rules', 'README.md'), renderRuleIndex(RULES));
  console.log(`wrote docs/rules/ for ${RULES.length} rules`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
