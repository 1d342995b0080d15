/**
 * Keeps the native infer route's view of the models current: whenever a model's READY versions
 * change, the native handles of those versions (and the version an unversioned URL means) are
 * published, with the labels of their outputs for the classification extension; models served by
 * something other than the native executor are never published, so their requests go through JS.
 */
import type { ClassLabels } from '../../executor/classification.js';
import type { NativeModel } from '../../executor/executor-addon.js';
import type { ModelManager } from '../model-manager.js';

/** One version the native routes may run; `labels`: by output name, those with a label_filename. */
export interface PublishedVersion {
  version: string;
  model: NativeModel;
  labels?: Record<string, ClassLabels>;
}

export interface PublishTarget {
  publish(model: string, versions: PublishedVersion[], defaultVersion: string): void;
}

/** Publishes every model now and after every change; returns the function that stops it. */
export function publishReadyModels(models: ModelManager, target: PublishTarget): () => void {
  const publish = (name: string): void => {
    const versions: PublishedVersion[] = [];
    let statuses: ReturnType<ModelManager['versions']> = [];
    try {
      statuses = models.versions(name);
    } catch {
      // Unknown (removed) model: withdraw it.
    }
    const labels = Object.fromEntries(models.labels(name));
    for (const status of statuses) {
      const handle = status.state === 'READY' ? status.model?.nativeModel?.() : undefined;
      if (handle) versions.push({ version: status.version, model: handle, labels });
    }
    let defaultVersion = '';
    try {
      const chosen = models.resolve(name);
      if (versions.some((v) => v.version === chosen.version)) defaultVersion = chosen.version;
    } catch {
      // No READY version: unversioned URLs are declined (JS answers them with the reason).
    }
    target.publish(name, versions, defaultVersion);
  };
  for (const name of new Set(models.statuses().map((s) => s.name))) publish(name);
  return models.onReadyChange(publish);
}
