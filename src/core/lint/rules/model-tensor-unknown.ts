import { closest, replaceFix, tensors } from '../helpers.js';
import { batchInputTargets, modelTensor, onnxModels, sequenceTensors } from '../model-tensors.js';
import type { ConfigRule } from '../rule.js';
import path from 'node:path';

export const rule: ConfigRule = {
  id: 'MODEL_TENSOR_UNKNOWN',
  purpose: 'Checks that every config input and output, every implicit-state tensor of sequence batching and every batch_input target, exists in the ONNX model under the same name.',
  severity: 'error',
  fixable: true,
  scope: 'config',
  needs: 'model-directory',
  check(ctx) {
    for (const model of onnxModels(ctx)) {
      for (const t of tensors(ctx.config)) {
        if (!t.tensor.name || modelTensor(model.info, t.io, t.tensor.name)) continue;
        const names = (t.io === 'input' ? model.info.inputs : model.info.outputs).map((m) => m.name);
        const suggestion = closest(t.tensor.name, names);
        // With one model tensor and one config tensor of this kind, the name has only one answer.
        const only = names.length === 1 && tensors(ctx.config, t.io).length === 1 ? names[0] : undefined;
        const rename = only ?? suggestion;
        ctx.report({
          at: [...t.path, 'name'],
          message: `${t.label} is not an ${t.io} of ${path.basename(model.path)}${suggestion ? `; did you mean '${suggestion}'?` : ''} (model ${t.io}s: ${names.join(', ') || 'none'})`,
          fix: rename
            ? replaceFix(ctx.parse.locate([...t.path, 'name']), JSON.stringify(rename), `rename it to "${rename}"`, rename === only)
            : { description: `use the model's ${t.io} names: ${names.join(', ')}`, edits: [], safe: false },
        });
      }
      // Implicit state and batch inputs are the model's too: Triton fails the load when one is missing.
      // (Control inputs are not checked: whether the GE backend needs them in the model is unknown.)
      for (const t of [...sequenceTensors(ctx.config).filter((s) => s.kind === 'state'), ...batchInputTargets(ctx.config)]) {
        if (modelTensor(model.info, t.io, t.name)) continue;
        const names = (t.io === 'input' ? model.info.inputs : model.info.outputs).map((m) => m.name);
        const suggestion = closest(t.name, names);
        ctx.report({
          at: t.path,
          message: `${t.label} is not an ${t.io} of ${path.basename(model.path)}${suggestion ? `; did you mean '${suggestion}'?` : ''} (model ${t.io}s: ${names.join(', ') || 'none'})`,
          fix: suggestion ? replaceFix(ctx.parse.locate(t.path), JSON.stringify(suggestion), `rename it to "${suggestion}"`, false) : undefined,
        });
      }
    }
  },
};
