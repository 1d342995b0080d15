/**
 * The scaffolding templates shipped in `templates/<name>/`: a template.json describing the
 * model's tensors and default settings, plus the files copied into the new model directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GebeError } from '../../errors.js';
import type { ScaffoldSettings, TensorSpec } from './render-config.js';

/** templates/ sits at the same depth from src/commands/init and dist/commands/init. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../../templates/', import.meta.url));

export const TEMPLATE_NAMES = ['mnist', 'blank'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export interface Template {
  name: TemplateName;
  dir: string;
  description: string;
  header: string[];
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  defaults: ScaffoldSettings;
  /** Paths relative to the template directory, copied to the same place in the model directory. */
  files: string[];
  /** A directory of sample inputs for `gebe infer`, relative to the template directory. */
  samples?: string;
  skeleton?: boolean;
}

export function isTemplateName(value: string): value is TemplateName {
  return (TEMPLATE_NAMES as readonly string[]).includes(value);
}

export function loadTemplate(name: TemplateName, templatesDir = TEMPLATES_DIR): Template {
  const dir = path.join(templatesDir, name);
  const file = path.join(dir, 'template.json');
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new GebeError(`template "${name}" is missing: cannot read ${file}`, {
      hint: 'reinstall gebe; the templates/ folder ships with the package',
      cause: err,
    });
  }
  return { name, dir, ...(JSON.parse(raw) as Omit<Template, 'name' | 'dir'>) };
}

/** The sample files of a template, absolute paths sorted by name (empty when it has none). */
export function templateSamples(template: Template): string[] {
  if (!template.samples) return [];
  const dir = path.join(template.dir, template.samples);
  return fs.readdirSync(dir).sort().map((f) => path.join(dir, f));
}
