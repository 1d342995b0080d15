"""Writes fixtures/onnx-node/: ONNX's own node tests (model, inputs, and the outputs ONNX's reference
implementation computes) for the operators the cpu engine took from opsets 18 to 25 that Debian's
libonnx-testdata (ONNX 1.12) has no tests for. conformance.test.ts runs them as it runs the Debian
ones. Generated with the onnx package's test-case generators (onnx.backend.test.case.node), whose
wheel ships the generators but not their data; the data is ONNX's (Apache License 2.0,
fixtures/onnx-node/LICENSE and NOTICE). Only tests whose model imports opset 25 or lower, and only
the operator's own test (not its "_expanded" function-body twin, whose parts the Debian data covers),
and none over 256 KB (test_lppool_3d_default's 32³ volume is 760 KB; vision-ops.test.ts takes
3-D LpPool against ONNX Runtime instead).

    python3 scripts/make-onnx-node-fixtures.py   (needs onnx >= 1.23 and numpy; not runtime dependencies)
"""
import os
import shutil

import onnx
from onnx import TensorProto, numpy_helper
import onnx.backend.test.case.node as node_cases

OPERATORS = {"Attention", "RMSNormalization", "RotaryEmbedding", "TensorScatter", "Swish", "DeformConv", "AffineGrid",
             "Col2Im", "CenterCropPad", "LpPool", "GlobalLpPool"}
MAX_OPSET = 25
MAX_BYTES = 256 << 10
OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "onnx-node")


def tensor(value, name):
    return value if isinstance(value, TensorProto) else numpy_helper.from_array(value, name)


def main():
    licence_dir = os.path.join(os.path.dirname(onnx.__file__), "..", f"onnx-{onnx.__version__}.dist-info", "licenses")
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    for name in ("LICENSE", "NOTICE"):
        shutil.copy(os.path.join(licence_dir, name), os.path.join(OUT, name))
    written = 0
    for case in node_cases.collect_testcases(None):
        model = case.model
        if model is None or not any(n.op_type in OPERATORS for n in model.graph.node):
            continue
        if any(o.domain in ("", "ai.onnx") and o.version > MAX_OPSET for o in model.opset_import):
            continue
        target = os.path.join(OUT, case.name)
        os.makedirs(target)
        with open(os.path.join(target, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data = os.path.join(target, f"test_data_set_{i}")
            os.makedirs(data)
            for j, value in enumerate(inputs):
                with open(os.path.join(data, f"input_{j}.pb"), "wb") as f:
                    f.write(tensor(value, model.graph.input[j].name).SerializeToString())
            for j, value in enumerate(outputs):
                with open(os.path.join(data, f"output_{j}.pb"), "wb") as f:
                    f.write(tensor(value, model.graph.output[j].name).SerializeToString())
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(target) for f in files)
        if size > MAX_BYTES:
            shutil.rmtree(target)
            print(f"skipped {case.name}: {size >> 10} KB")
            continue
        written += 1
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(f"""# ONNX node tests (onnx {onnx.__version__})

ONNX's own node tests of the operators the cpu engine took from opsets 18-25 that Debian's
libonnx-testdata (ONNX 1.12) has none of: each directory holds the model, its inputs and the outputs
ONNX's reference implementation computes, written by `scripts/make-onnx-node-fixtures.py` with the
test-case generators of the onnx package (`onnx.backend.test.case.node`). The data is ONNX's, under
the Apache License 2.0 (LICENSE and NOTICE here). `test/core/executor/cpu/conformance.test.ts` and
the sanitizer engine driver (`native/test/cpu/engine_driver.cc`) run them.
""")
    print(f"{OUT}: {written} node tests from onnx {onnx.__version__}")


if __name__ == "__main__":
    main()
