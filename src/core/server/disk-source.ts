/**
 * The ModelSource over a model repository on disk: each model's config.pbtxt parsed by the config
 * core, its findings as load-blocking errors, the versions its version policy serves, and a
 * fingerprint of its files for poll mode.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseModelConfig, printModelConfig } from '../config/index.js';
import type { ModelConfig } from '../config/model-config.js';
import type { Diagnostic } from '../diagnostic.js';
import type { ModelSource, RepositoryModel } from './model-source.js';

/** Checks one model directory; returns error diagnostics (the validate rules, once wired in). */
export type ModelValidator = (modelDir: string, configText: string, configFile: string) => Diagnostic[];

const NOT_VERSIONS = new Set(['warmup', 'initial_state', 'configs']);

export class DiskModelSource implements ModelSource {
  constructor(readonly repository: string, private readonly validate: ModelValidator = parseDiagnostics) {}

  async list(): Promise<string[]> {
    return readdirSync(this.repository, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && existsSync(path.join(this.repository, e.name, 'config.pbtxt')))
      .map((e) => e.name)
      .sort();
  }

  async read(name: string, configOverride?: ModelConfig): Promise<RepositoryModel | undefined> {
    if (name.includes('/') || name.includes('\\') || name.includes('..') || name === '') return undefined;
    const dir = path.join(this.repository, name);
    const configFile = path.join(dir, 'config.pbtxt');
    if (!existsSync(dir) || (!configOverride && !existsSync(configFile))) return undefined;
    let text: string;
    let file = configFile;
    if (configOverride) {
      text = printModelConfig(configOverride);
      file = `${configFile} (replaced by the load request's 'config' parameter)`;
    } else {
      text = readFileSync(configFile, 'utf8');
    }
    const parsed = parseModelConfig(text, file);
    const errors = [...parsed.diagnostics, ...this.validate(dir, text, file)]
      .filter((d) => d.severity === 'error')
      .map((d) => `${path.relative(this.repository, d.file) || d.file}:${d.line}:${d.column} ${d.ruleId} ${d.message}`);
    const config: ModelConfig = { ...parsed.config, name: parsed.config.name || name };
    const versions = servedVersions(dir, config);
    return { name, dir, config, versions, errors: [...new Set(errors)], fingerprint: fingerprint(dir, configFile, versions, text) };
  }
}

/** The parser's own diagnostics are already included; without lint rules nothing is added. */
function parseDiagnostics(): Diagnostic[] {
  return [];
}

/** Numeric version directories without leading zeros, filtered by the version policy. */
export function servedVersions(dir: string, config: ModelConfig): string[] {
  const all = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !NOT_VERSIONS.has(e.name) && /^(0|[1-9][0-9]*)$/.test(e.name))
    .map((e) => Number(e.name))
    .sort((a, b) => a - b);
  const policy = config.version_policy;
  if (policy?.all) return all.map(String);
  if (policy?.specific) return all.filter((v) => (policy.specific!.versions ?? []).map(Number).includes(v)).map(String);
  const n = policy?.latest?.num_versions ?? 1;
  return all.slice(Math.max(0, all.length - n)).map(String);
}

function fingerprint(dir: string, configFile: string, versions: string[], configText: string): string {
  const hash = createHash('sha1').update(configText);
  const visit = (p: string): void => {
    for (const entry of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(p, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) {
        const st = statSync(full);
        hash.update(`${full}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  for (const v of versions) visit(path.join(dir, v));
  if (existsSync(configFile)) hash.update(String(statSync(configFile).mtimeMs));
  return hash.digest('hex');
}
