/**
 * The ModelSource over a model repository on disk: each model scanned by the repository scanner and
 * checked by the `gebe validate` rules (error-level findings block its load), the versions its
 * version policy serves, and a fingerprint of its files for poll mode.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { printModelConfig } from '../config/index.js';
import type { ConfigLimits } from '../config/limits.js';
import type { ModelConfig } from '../config/model-config.js';
import type { Diagnostic } from '../diagnostic.js';
import { lintTargets } from '../lint/runner.js';
import { nodeFileSystem } from '../repository/fs.js';
import { CONFIG_FILE, customConfigFile, scanModel } from '../repository/scan.js';
import type { ScanProblem, VersionDir } from '../repository/types.js';
import { selectVersions } from '../repository/versions.js';
import type { ModelSource, RepositoryModel } from './model-source.js';
import { ProtocolError } from '../kserve/protocol-error.js';
import { CONFIG_ORIGINS, type ConfigOrigin } from './config-json.js';

export class DiskModelSource implements ModelSource {
  /**
   * `limits`: CONFIG_LIMIT bounds other than the defaults (serve's --max-instances-per-model);
   * `configName`: Triton's --model-config-name, each model's configs/<name>.pbtxt where it has one.
   */
  constructor(readonly repository: string, private readonly limits: Partial<ConfigLimits> = {}, private readonly configName?: string) {}

  async list(): Promise<string[]> {
    const configs = [CONFIG_FILE, ...(this.configName === undefined ? [] : [customConfigFile(this.configName)])];
    return readdirSync(this.repository, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && configs.some((c) => existsSync(path.join(this.repository, e.name, c))))
      .map((e) => e.name)
      .sort();
  }

  async read(name: string, configOverride?: ModelConfig, origin: ConfigOrigin = 'load-request'): Promise<RepositoryModel | undefined> {
    if (name === '' || name.includes('/') || name.includes('\\') || name.includes('..')) return undefined;
    const dir = path.join(this.repository, name);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
    const problems: ScanProblem[] = [];
    // Findings name files relative to the repository (mnist/config.pbtxt:12:3), as validate prints them.
    const entry = scanModel(nodeFileSystem, dir, name, problems, this.configName);
    if (configOverride) {
      let text: string;
      try {
        text = printModelConfig(configOverride);
      } catch (err) {
        throw ProtocolError.badRequest(`${CONFIG_ORIGINS[origin].name} for '${name}' is not a valid ModelConfig: ${(err as Error).message.replace(/^Cannot print config field /, 'field ')}`);
      }
      entry.config = { path: path.join(dir, CONFIG_FILE), display: `${name}/${CONFIG_FILE} (${CONFIG_ORIGINS[origin].display})`, text };
    }
    if (!entry.config) return undefined;
    const result = lintTargets([{ kind: 'model', given: name, path: dir, models: [entry], problems }], { limits: this.limits });
    const parse = result.configs[0]?.parse;
    const config: ModelConfig | undefined = parse ? { ...parse.config, name: parse.config.name || name } : undefined;
    const errors = result.diagnostics.filter((d) => d.severity === 'error').map(formatFinding);
    const versions = config ? selectVersions(config, entry.versions).selected.map((v) => String(v.version)) : [];
    const served = entry.versions.filter((v) => versions.includes(String(v.version)));
    return { name, dir, config, versions, errors, fingerprint: fingerprint(served, entry.config.text ?? '') };
  }
}

function formatFinding(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.ruleId} ${d.message}`;
}

/**
 * Changes with the config text and with any file (size, mtime) in a served version directory:
 * the files the repository scan listed, so the walk's bounds and symlink rules hold here too.
 */
function fingerprint(versions: VersionDir[], configText: string): string {
  const hash = createHash('sha1').update(configText);
  for (const v of versions) {
    for (const file of v.files) {
      const full = path.join(v.path, file);
      try {
        const st = statSync(full);
        hash.update(`${full}\0${st.size}\0${st.mtimeMs}\n`);
      } catch {
        hash.update(`${full}\0gone\n`);
      }
    }
  }
  return hash.digest('hex');
}
