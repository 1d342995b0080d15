#!/usr/bin/env python3
"""Writes templates/blank/1/model.onnx: a placeholder Identity model (input "input" FP32 [batch, 4] ->
output "output" FP32 [batch, 4]) so a model scaffolded from the `blank` template loads and validates
until the user drops in the real model. Run: .venv/bin/python scripts/make-blank-model.py"""
import os

import onnx
from onnx import TensorProto, helper

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
graph = helper.make_graph(
    [helper.make_node("Identity", ["input"], ["output"], name="placeholder")],
    "blank_placeholder",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 4])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 4])],
)
graph.doc_string = "Placeholder written by gebe's blank template: replace with your model."
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gebe")
model.ir_version = 7
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(root, "templates", "blank", "1", "model.onnx"))
