import type { RuleCases } from '../rule-tester.js';

const TENSORS = 'input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';

export default {
  valid: [
    { config: `name: "m"\nbackend: "ge"\nmax_batch_size: 8\n${TENSORS}response_cache {\n  enable: true\n}\n` },
    // Not enabled: nothing to say, whatever the model.
    { config: `name: "m"\nbackend: "python"\nmax_batch_size: 0\n${TENSORS}model_transaction_policy { decoupled: true }\nresponse_cache { enable: false }\n` },
  ],
  invalid: [
    {
      config: `name: "m"\nbackend: "python"\nmax_batch_size: 0\n${TENSORS}model_transaction_policy {\n  decoupled: true\n}\nresponse_cache {\n  enable: true\n}\n`,
      errors: [{ line: 10, column: 3, message: 'response_cache is enabled on a decoupled model: Triton (and gebe serve) refuse to load it on a server started with a response cache' }],
    },
    {
      name: 'a sequence model',
      config: `name: "m"\nbackend: "ge"\nmax_batch_size: 8\n${TENSORS}sequence_batching { }\nresponse_cache { enable: true }\n`,
      errors: [{ line: 7, column: 18, message: "response_cache is enabled on a sequence_batching model: its answers depend on the sequence's state" }],
    },
  ],
} satisfies RuleCases;
