/**
 * How code running inside the server finds another loaded model by name and version: an
 * ensemble's steps, and a Python model's BLS calls. The model manager implements it; callers get
 * only this, so they cannot load, unload or list models.
 */
import type { LoadedModel } from '../executor/types.js';

export interface ModelLookup {
  /**
   * The READY model `name` at `version` (the highest READY version when `version` is absent, '' or
   * '-1', as Triton's model_version -1). Throws a ProtocolError in Triton's words when there is
   * none: 404 for an unknown model or version, 503 for one that is not READY.
   */
  resolve(name: string, version?: string): LoadedModel;
}

/** Triton's "latest version" spellings (ensemble steps' model_version: -1, BLS's model_version=-1). */
export function latestVersion(version: string | number | undefined): string | undefined {
  if (version === undefined || version === '' || version === -1 || version === '-1') return undefined;
  return String(version);
}
