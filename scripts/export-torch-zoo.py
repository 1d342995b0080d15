"""Exports the models `npm run bench:zoo` times: torchvision classification, segmentation and video
models and a few hand-written ones (a GPT-2-style and a Llama-style decoder, a YOLOv8-style
backbone/neck, a UNet, a Whisper-style audio encoder), each with torch.onnx.export as a user calls
it today (the default exporter, dynamo, at its opset), random weights, into <dir>/<name>/model.onnx
with one input <dir>/<name>/input.npy. Not a dependency of gebe or of its tests: it needs torch,
torchvision, onnx and onnxscript (pip, in a venv of its own), and the exports take about 1.5 GB.

    python3 scripts/export-torch-zoo.py [--opset N] /tmp/zoo [name ...]

--opset N exports at opset N instead of the exporter's default (at 23, scaled_dot_product_attention
becomes ONNX's Attention and nn.RMSNorm RMSNormalization).
"""
import os
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

# A torchvision wheel built for another torch variant fails registering its C++ operators (nms and
# the like) at import; the models below do not use them, so the registrations are skipped.
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *args, **kwargs: (lambda fn: fn)
import torchvision.models as tvm  # noqa: E402
import torchvision.models.segmentation as tvseg  # noqa: E402
import torchvision.models.video as tvvideo  # noqa: E402
torch.library.register_fake = _register_fake

torch.manual_seed(0)


class Gpt(nn.Module):
    """GPT-2 blocks: causal scaled_dot_product_attention, tanh GELU."""

    def __init__(self, d=64, heads=4, layers=2, vocab=100):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.ModuleDict(dict(
            ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d), proj=nn.Linear(d, d),
            ln2=nn.LayerNorm(d), fc=nn.Linear(d, 4 * d), out=nn.Linear(4 * d, d))) for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        b, t, d = x.shape
        for blk in self.blocks:
            q, k, v = blk["qkv"](blk["ln1"](x)).split(d, dim=-1)
            q, k, v = [z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v)]
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
            x = x + blk["proj"](y)
            x = x + blk["out"](F.gelu(blk["fc"](blk["ln2"](x)), approximate="tanh"))
        return self.head(x)


class Llama(nn.Module):
    """A Llama block: RMSNorm, rotary embeddings, causal attention, SwiGLU."""

    def __init__(self, d=64, heads=4, vocab=100):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.gate, self.up, self.down = nn.Linear(d, 2 * d, bias=False), nn.Linear(d, 2 * d, bias=False), nn.Linear(2 * d, d, bias=False)

    @staticmethod
    def rope(x):
        t, hd = x.shape[-2], x.shape[-1]
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        f = torch.outer(torch.arange(t, dtype=torch.float32), inv)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * f.cos() - x2 * f.sin(), x1 * f.sin() + x2 * f.cos()], dim=-1).flatten(-2)

    def forward(self, ids):
        x = self.embed(ids)
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).chunk(3, dim=-1)
        q, k, v = [z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v)]
        y = F.scaled_dot_product_attention(self.rope(q), self.rope(k), v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(y)
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Yolo(nn.Module):
    """A YOLOv8-style backbone and neck: Conv-BN-SiLU, a C2f split, SPPF max pools, nearest upsample, concat."""

    def __init__(self, c=16):
        super().__init__()
        cbs = lambda i, o, k=3, s=1: nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.SiLU())
        self.stem, self.d1, self.d2, self.d3 = cbs(3, c, 3, 2), cbs(c, 2 * c, 3, 2), cbs(2 * c, 4 * c, 3, 2), cbs(4 * c, 8 * c, 3, 2)
        self.m1, self.m2 = cbs(2 * c, 2 * c), cbs(2 * c, 2 * c)
        self.squeeze = nn.Sequential(cbs(4 * c, 2 * c, 1))
        self.sppf_in, self.sppf_out = cbs(8 * c, 4 * c, 1), cbs(16 * c, 8 * c, 1)
        self.head, self.detect = cbs(12 * c, 4 * c), nn.Conv2d(4 * c, 3 * 85, 1)

    def forward(self, x):
        x = self.d1(self.stem(x))
        a, b = x.chunk(2, 1)
        x = self.squeeze(torch.cat([a, b, self.m2(self.m1(x))], 1)[:, : 4 * 16])
        p4 = self.d2(x)
        p5 = self.d3(p4)
        y = self.sppf_in(p5)
        y1 = F.max_pool2d(y, 5, 1, 2)
        y2 = F.max_pool2d(y1, 5, 1, 2)
        y3 = F.max_pool2d(y2, 5, 1, 2)
        p5 = self.sppf_out(torch.cat([y, y1, y2, y3], 1))
        up = F.interpolate(p5, scale_factor=2, mode="nearest")
        return self.detect(self.head(torch.cat([up, p4], 1)))


class UNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        block = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.Conv2d(o, o, 3, padding=1), nn.ReLU())
        self.d1, self.d2, self.d3 = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.u2, self.c2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2), block(4 * c, 2 * c)
        self.u1, self.c1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2), block(2 * c, c)
        self.out = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        c = self.d3(F.max_pool2d(b, 2))
        b = self.c2(torch.cat([self.u2(c), b], 1))
        return self.out(self.c1(torch.cat([self.u1(b), a], 1)))


class AudioEncoder(nn.Module):
    """A Whisper-style encoder: two Conv1d (the second strided) with GELU, then pre-norm transformer layers."""

    def __init__(self, mels=80, d=128):
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(mels, d, 3, padding=1), nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.pos = nn.Parameter(torch.randn(1, 150, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        x = F.gelu(self.c2(F.gelu(self.c1(x)))).transpose(1, 2)
        return self.encoder(x + self.pos)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the export takes its 'out'."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def image(size=224):
    return torch.randn(1, 3, size, size)


MODELS = {
    "resnet18": lambda: (tvm.resnet18(), image()),
    "resnet50": lambda: (tvm.resnet50(), image()),
    "resnext50_32x4d": lambda: (tvm.resnext50_32x4d(), image()),
    "mobilenet_v2": lambda: (tvm.mobilenet_v2(), image()),
    "mobilenet_v3_small": lambda: (tvm.mobilenet_v3_small(), image()),
    "efficientnet_b0": lambda: (tvm.efficientnet_b0(), image()),
    "efficientnet_v2_s": lambda: (tvm.efficientnet_v2_s(), image()),
    "mnasnet0_5": lambda: (tvm.mnasnet0_5(), image()),
    "regnet_x_400mf": lambda: (tvm.regnet_x_400mf(), image()),
    "regnet_y_400mf": lambda: (tvm.regnet_y_400mf(), image()),
    "shufflenet_v2_x0_5": lambda: (tvm.shufflenet_v2_x0_5(), image()),
    "squeezenet1_0": lambda: (tvm.squeezenet1_0(), image()),
    "densenet121": lambda: (tvm.densenet121(), image()),
    "googlenet": lambda: (tvm.googlenet(aux_logits=False, init_weights=True), image()),
    "inception_v3": lambda: (tvm.inception_v3(aux_logits=False, init_weights=True), image(299)),
    "convnext_tiny": lambda: (tvm.convnext_tiny(), image()),
    "swin_t": lambda: (tvm.swin_t(), image()),
    "maxvit_t": lambda: (tvm.maxvit_t(), image()),
    "vit_b_16": lambda: (tvm.vit_b_16(), image()),
    "deeplabv3_mobilenet_v3_large": lambda: (SegmentationOut(tvseg.deeplabv3_mobilenet_v3_large(weights_backbone=None)), image()),
    "lraspp_mobilenet_v3_large": lambda: (SegmentationOut(tvseg.lraspp_mobilenet_v3_large(weights_backbone=None)), image()),
    "fcn_resnet50": lambda: (SegmentationOut(tvseg.fcn_resnet50(weights_backbone=None)), image()),
    "r3d_18": lambda: (tvvideo.r3d_18(), torch.randn(1, 3, 8, 112, 112)),
    "gpt": lambda: (Gpt(), torch.randint(0, 100, (2, 16))),
    "llama": lambda: (Llama(), torch.randint(0, 100, (2, 16))),
    "yolo": lambda: (Yolo(), image(256)),
    "unet": lambda: (UNet(), image(128)),
    "audio_encoder": lambda: (AudioEncoder(), torch.randn(1, 80, 300)),
}


def main():
    args = sys.argv[1:]
    opset = None
    if args[:1] == ["--opset"] and len(args) > 1 and args[1].isdigit():
        opset, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    out, only = args[0], args[1:]
    for name, make in MODELS.items():
        if only and name not in only:
            continue
        target = os.path.join(out, name)
        os.makedirs(target, exist_ok=True)
        start = time.time()
        try:
            model, x = make()
            model.eval()
            path = os.path.join(target, "model.onnx")
            torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"], external_data=False, opset_version=opset)
            np.save(os.path.join(target, "input.npy"), x.numpy())
            print(f"{name}: {os.path.getsize(path) >> 20} MB in {time.time() - start:.0f} s", flush=True)
        except Exception as error:  # one model's export failing should not stop the others
            print(f"{name}: export failed: {type(error).__name__}: {str(error)[:300]}", flush=True)


if __name__ == "__main__":
    main()
