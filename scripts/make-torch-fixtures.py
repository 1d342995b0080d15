"""Writes the small PyTorch exports the cpu engine's fixture tests run against ONNX Runtime
(fixtures/models/torch/): the everyday models a new user exports with torch.onnx.export, with the
TorchScript exporter at opset 17 and (the *_dynamo files) with the exporter torch.onnx.export uses
by default since torch 2.9. Run: python3 scripts/make-torch-fixtures.py (needs torch, onnx and
onnxscript; not runtime dependencies).
"""
import os

import torch
import torch.nn.functional as F
from torch import nn

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "models", "torch")
torch.manual_seed(0)


def export(model, args, name, inputs, outputs, dynamic_axes=None):
    model.eval()
    path = os.path.join(OUT, name)
    torch.onnx.export(model, args, path, opset_version=17, input_names=inputs, output_names=outputs,
                      dynamic_axes=dynamic_axes, dynamo=False)
    print(f"{path}: {os.path.getsize(path)} bytes")


def export_default(model, args, name, inputs=("x",), opset=None):
    """torch.onnx.export as a user calls it today: the default (dynamo) exporter, at its opset or `opset`."""
    model.eval()
    path = os.path.join(OUT, name)
    torch.onnx.export(model, args, path, input_names=list(inputs), output_names=["y"], external_data=False, opset_version=opset)
    print(f"{path}: {os.path.getsize(path)} bytes")


class MBConv(nn.Module):
    """EfficientNet's block: 1x1 expansion, 5x5 depthwise, squeeze-and-excitation, 1x1 projection, all SiLU."""

    def __init__(self, c=16, expand=4):
        super().__init__()
        e = c * expand
        self.expand = nn.Sequential(nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.SiLU())
        self.depthwise = nn.Sequential(nn.Conv2d(e, e, 5, padding=2, groups=e, bias=False), nn.BatchNorm2d(e), nn.SiLU())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(e, c // 2, 1), nn.SiLU(), nn.Conv2d(c // 2, e, 1), nn.Sigmoid())
        self.project = nn.Sequential(nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = self.depthwise(self.expand(x))
        return x + self.project(y * self.se(y))


class EfficientMini(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.SiLU())
        self.blocks = nn.Sequential(MBConv(), MBConv())
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


class GptMini(nn.Module):
    """A GPT-2-style decoder: causal scaled_dot_product_attention and the tanh GELU."""

    def __init__(self, d=32, heads=4, layers=2, vocab=100):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.ln1 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.qkv = nn.ModuleList(nn.Linear(d, 3 * d) for _ in range(layers))
        self.proj = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.fc = nn.ModuleList(nn.Linear(d, 4 * d) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(4 * d, d) for _ in range(layers))
        self.lm_head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        b, t, d = x.shape
        for i in range(len(self.qkv)):
            q, k, v = self.qkv[i](self.ln1[i](x)).split(d, dim=-1)
            q, k, v = [z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v)]
            y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj[i](y)
            x = x + self.out[i](nn.functional.gelu(self.fc[i](self.ln2[i](x)), approximate="tanh"))
        return self.lm_head(x)


class WindowAttention(nn.Module):
    """MaxViT's attention over windows, written with torch.einsum as torchvision writes it."""

    def __init__(self, d=32, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):  # [B, G, P, D]: batch, windows, positions per window, channels
        b, g, p, d = x.shape
        q, k, v = self.qkv(x).reshape(b, g, p, 3, self.heads, d // self.heads).permute(3, 0, 1, 4, 2, 5)
        dots = torch.einsum("BGHID,BGHJD->BGHIJ", q, k) * (d // self.heads) ** -0.5
        y = torch.einsum("BGHIJ,BGHJD->BGHID", dots.softmax(dim=-1), v)
        return self.proj(y.permute(0, 1, 3, 2, 4).reshape(b, g, p, d))


class LlamaMini(nn.Module):
    """A Llama block for opset 23, where the exporter writes ONNX's own LLM operators: nn.RMSNorm as
    RMSNormalization, torch.onnx.ops.rotary_embedding as RotaryEmbedding (at given positions) and
    grouped-query causal scaled_dot_product_attention (4 query heads over 2 key/value heads) as
    Attention."""

    def __init__(self, d=64, heads=4, kv_heads=2, vocab=100, positions=64):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.embed = nn.Embedding(vocab, d)
        self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.q, self.kv, self.o = nn.Linear(d, d, bias=False), nn.Linear(d, 2 * d // heads * kv_heads, bias=False), nn.Linear(d, d, bias=False)
        self.gate, self.up, self.down = nn.Linear(d, 2 * d, bias=False), nn.Linear(d, 2 * d, bias=False), nn.Linear(2 * d, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd))
        angles = torch.outer(torch.arange(positions, dtype=torch.float32), inv)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, ids, pos):
        x = self.embed(ids)
        b, t, d = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k, v = self.kv(h).view(b, t, 2 * self.kv_heads, self.hd).transpose(1, 2).chunk(2, dim=1)
        q = torch.onnx.ops.rotary_embedding(q, self.cos, self.sin, pos)
        k = torch.onnx.ops.rotary_embedding(k, self.cos, self.sin, pos)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(y)
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class SpatialTransformer(nn.Module):
    """A spatial transformer (affine_grid + grid_sample, which the exporter writes as plain
    arithmetic and GridSample) followed by nn.Unfold/nn.Fold (Fold is Col2Im) and nn.LPPool2d."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 12 * 12, 6))
        self.unfold, self.fold = nn.Unfold(kernel_size=3, padding=1), nn.Fold(output_size=(28, 28), kernel_size=3, padding=1)
        self.lp = nn.LPPool2d(2, 2)

    def forward(self, x):
        grid = F.affine_grid(self.loc(x).view(-1, 2, 3), x.size(), align_corners=False)
        y = F.grid_sample(x, grid, align_corners=False)
        return self.lp(self.fold(self.unfold(y)))


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
    export_default(EfficientMini(), (torch.randn(1, 3, 32, 32),), "efficient_mini_dynamo.onnx")
    export_default(GptMini(), (torch.randint(0, 100, (2, 16)),), "gpt_mini_dynamo.onnx")
    export_default(WindowAttention(), (torch.randn(1, 4, 16, 32),), "window_attention_dynamo.onnx")
    export_default(SpatialTransformer(), (torch.randn(2, 1, 28, 28),), "spatial_transformer_dynamo.onnx")
    positions = torch.arange(16).repeat(2, 1) + torch.tensor([[0], [5]])
    export_default(LlamaMini(), (torch.randint(0, 100, (2, 16)), positions), "llama_mini_opset23.onnx", ("ids", "pos"), opset=23)


if __name__ == "__main__":
    main()
