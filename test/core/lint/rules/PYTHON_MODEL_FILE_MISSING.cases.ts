import type { RuleCases } from '../rule-tester.js';

const PYTHON_CONFIG = `name: "m"
backend: "python"
max_batch_size: 8
input [
  {
    name: "probabilities"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]
output [
  {
    name: "label"
    data_type: TYPE_STRING
    dims: [ 1 ]
  }
]
`;
const MODEL_PY = 'class TritonPythonModel:\n    def execute(self, requests):\n        return []\n';

export default {
  valid: [
    { config: PYTHON_CONFIG, files: { '1/model.py': MODEL_PY } },
    { name: 'a default_model_filename', config: `${PYTHON_CONFIG}default_model_filename: "labeler.py"\n`, files: { '1/labeler.py': MODEL_PY } },
  ],
  invalid: [
    {
      name: 'a version directory without model.py',
      config: PYTHON_CONFIG,
      files: { '1/labels.txt': 'zero\none\n' },
      errors: [{ file: '1', line: 1, column: 1, message: 'has no model.py' }],
    },
  ],
} satisfies RuleCases;
