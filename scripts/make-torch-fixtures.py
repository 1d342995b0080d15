"""Writes the small PyTorch exports the cpu engine's fixture tests run against ONNX Runtime
(fixtures/models/torch/): the everyday models a new user exports with torch.onnx.export at
opset 17. Run: python3 scripts/make-torch-fixtures.py (needs torch and onnx; not a runtime dep).
"""
import os

import torch
from torch import nn

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "models", "torch")
torch.manual_seed(0)


def export(model, args, name, inputs, outputs, dynamic_axes=None):
    model.eval()
    path = os.path.join(OUT, name)
    torch.onnx.export(model, args, path, opset_version=17, input_names=inputs, output_names=outputs,
                      dynamic_axes=dynamic_axes, dynamo=False)
    print(f"{path}: {os.path.getsize(path)} bytes")


class Recurrent(nn.Module):
    """nn.LSTM then nn.GRU (bidirectional), as a speech or sequence tagger stacks them."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=1)
        self.gru = nn.GRU(32, 24, bidirectional=True)
        self.head = nn.Linear(48, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.head(y)


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Linear(16, 10))

    def forward(self, x):
        return self.body(x)


class Conv3dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2), nn.Conv3d(4, 8, 3),
                                  nn.AvgPool3d(2), nn.ConvTranspose3d(8, 2, 2, stride=2))

    def forward(self, x):
        return self.body(x)


def main():
    os.makedirs(OUT, exist_ok=True)
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    export(encoder, (torch.randn(1, 32, 64),), "transformer_encoder.onnx", ["x"], ["y"])
    cnn = SmallCnn().eval().half()
    export(cnn, (torch.randn(2, 3, 32, 32).half(),), "cnn_fp16.onnx", ["x"], ["y"], {"x": {0: "batch"}, "y": {0: "batch"}})
    export(Recurrent(), (torch.randn(10, 2, 16),), "lstm_gru.onnx", ["x"], ["y"], {"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"}})
    export(Conv3dNet(), (torch.randn(1, 1, 8, 8, 8),), "conv3d.onnx", ["x"], ["y"])


if __name__ == "__main__":
    main()
