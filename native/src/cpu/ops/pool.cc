// Pooling: MaxPool (with optional Indices), AveragePool (count_include_pad), GlobalAveragePool,
// GlobalMaxPool. 1-D and 2-D here; 3 or more spatial dims in pool_nd.cc.
#include <cfloat>
#include <limits>
#include <vector>

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/pool_nd.h"
#include "cpu/ops/pool_rows.h"

namespace gebe::cpu {

namespace {

class PoolKernel : public Kernel {
 public:
  PoolKernel(const Node& node, bool max) : Kernel(node), attrs_(node), max_(max) {
    ceil_mode_ = node.get_int("ceil_mode", 0) != 0;
    count_include_pad_ = node.get_int("count_include_pad", 0) != 0;
    column_major_ = node.get_int("storage_order", 0) != 0;
    if (attrs_.kernel.empty()) Fail("kernel_shape is required");
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    if (max_) ExpectType(x, "X", {DataType::kFloat32, DataType::kUInt8, DataType::kInt8});
    else ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() < 3) Fail("X must have a batch, a channel and at least one spatial dim; it has shape " + ShapeToString(x.shape));
    ConvGeometry g = Geometry(x);
    Shape s = {x.shape[0], x.shape[1]};
    s.insert(s.end(), g.out.begin(), g.out.end());
    out[0] = {x.dtype, s, nullptr};
    if (out.size() > 1) out[1] = {DataType::kInt64, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    if (in[0]->dtype != DataType::kFloat32) return RunThroughFloat(in, out, ctx);
    const TensorRef& x = *in[0];
    ConvGeometry geo = Geometry(x);
    if (geo.spatial > 2) {
      PoolNdArgs nd;
      nd.x = x.as<const float>();
      nd.y = out[0].as<float>();
      nd.indices = out.size() > 1 && out[1].data ? out[1].as<int64_t>() : nullptr;
      nd.planes = x.shape[0] * x.shape[1];
      nd.g = &geo;
      nd.max = max_;
      nd.count_include_pad = count_include_pad_;
      nd.column_major = column_major_;
      PoolNd(nd, ctx);
      return;
    }
    bool one_d = geo.spatial == 1;
    int64_t ih = one_d ? 1 : geo.in[0], iw = geo.in[one_d ? 0 : 1];
    int64_t oh = one_d ? 1 : geo.out[0], ow = geo.out[one_d ? 0 : 1];
    int64_t kh = one_d ? 1 : geo.kernel[0], kw = geo.kernel[one_d ? 0 : 1];
    int64_t sh = one_d ? 1 : geo.stride[0], sw = geo.stride[one_d ? 0 : 1];
    int64_t dh = one_d ? 1 : geo.dilation[0], dw = geo.dilation[one_d ? 0 : 1];
    int64_t ph = one_d ? 0 : geo.pad_begin[0], pw = geo.pad_begin[one_d ? 0 : 1];
    int64_t peh = one_d ? 0 : geo.pad_end[0], pew = geo.pad_end[one_d ? 0 : 1];
    int64_t planes = x.shape[0] * x.shape[1];
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    int64_t* pi = out.size() > 1 && out[1].data ? out[1].as<int64_t>() : nullptr;
    // Kernel columns inside the input for every output column (the divisions are done once).
    std::vector<int64_t> bx0(static_cast<size_t>(ow)), bx1(static_cast<size_t>(ow));
    for (int64_t xo = 0; xo < ow; ++xo) {
      int64_t x0 = xo * sw - pw;
      bx0[size_t(xo)] = x0 >= 0 ? 0 : (-x0 + dw - 1) / dw;
      bx1[size_t(xo)] = std::min<int64_t>(kw, x0 >= iw ? 0 : (iw - 1 - x0) / dw + 1);
    }
    // Output columns whose whole window is inside the row: [xa, xb). MaxPool without indices does
    // them tap by tap over the row (vectorised), leaving only the borders to the per-output loop.
    int64_t xa = 0, xb = 0;
    if (max_ && !pi) {
      while (xa < ow && bx0[size_t(xa)] != 0) ++xa;
      xb = xa;
      while (xb < ow && bx0[size_t(xb)] == 0 && bx1[size_t(xb)] == kw) ++xb;
    }
    const MaxInteriorFn max_interior = ActiveMaxInterior();
    ctx.pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, oh * ow * kh * kw)),
                          [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* xc = px + p * ih * iw;
        float* yc = py + p * oh * ow;
        for (int64_t y = 0; y < oh; ++y) {
          int64_t y0 = y * sh - ph;
          // Kernel rows inside the input: [a0, a1).
          int64_t a0 = y0 >= 0 ? 0 : (-y0 + dh - 1) / dh;
          int64_t a1 = std::min<int64_t>(kh, y0 >= ih ? 0 : (ih - 1 - y0) / dh + 1);
          if (xb > xa) max_interior(xc, iw, y0, a0, a1, dh, kw, dw, sw, xa * sw - pw, yc + y * ow + xa, xb - xa);
          for (int64_t xo = 0; xo < ow; ++xo) {
            if (xo == xa && xb > xa) xo = xb;
            if (xo >= ow) break;
            int64_t x0 = xo * sw - pw;
            int64_t b0 = bx0[size_t(xo)], b1 = bx1[size_t(xo)];
            int64_t count = std::max<int64_t>(0, a1 - a0) * std::max<int64_t>(0, b1 - b0);
            float* dst = yc + y * ow + xo;
            if (max_ && !pi) {
              float best = -std::numeric_limits<float>::infinity();
              for (int64_t a = a0; a < a1; ++a) {
                const float* row = xc + (y0 + a * dh) * iw;
                for (int64_t b = b0; b < b1; ++b) best = std::max(best, row[x0 + b * dw]);
              }
              *dst = best;
            } else if (max_) {
              float best = -std::numeric_limits<float>::infinity();
              int64_t best_index = -1;
              for (int64_t a = a0; a < a1; ++a) {
                const float* row = xc + (y0 + a * dh) * iw;
                for (int64_t b = b0; b < b1; ++b) {
                  float v = row[x0 + b * dw];
                  if (v > best || best_index < 0) {
                    best = v;
                    best_index = (y0 + a * dh) * iw + x0 + b * dw;
                  }
                }
              }
              *dst = best;
              if (pi) {
                // Indices are flat offsets into X; storage_order=1 counts them column-major within a plane.
                int64_t local = column_major_ ? (best_index % iw) * ih + best_index / iw : best_index;
                pi[p * oh * ow + y * ow + xo] = p * ih * iw + local;
              }
            } else {
              float sum = 0;
              for (int64_t a = a0; a < a1; ++a) {
                const float* row = xc + (y0 + a * dh) * iw;
                for (int64_t b = b0; b < b1; ++b) sum += row[x0 + b * dw];
              }
              int64_t denom = count;
              if (count_include_pad_) {
                // Windows are clipped to the padded input (the part in ceil_mode overhang is not counted).
                int64_t hy0 = std::max<int64_t>(y0, -ph), hy1 = std::min<int64_t>(y0 + (kh - 1) * dh + 1, ih + peh);
                int64_t hx0 = std::max<int64_t>(x0, -pw), hx1 = std::min<int64_t>(x0 + (kw - 1) * dw + 1, iw + pew);
                denom = ((hy1 - hy0 + dh - 1) / dh) * ((hx1 - hx0 + dw - 1) / dw);
              }
              *dst = denom > 0 ? sum / float(denom) : 0.f;
            }
          }
        }
      }
    });
  }

 private:
  ConvGeometry Geometry(const TensorRef& x) const {
    return ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), {}, ceil_mode_);
  }

  ConvAttributes attrs_;
  // UINT8/INT8 MaxPool (opset 12): every 8-bit value is exact in FP32 and a maximum is one of
  // its inputs, so the FP32 path gives the exact result.
  void RunThroughFloat(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) {
    const TensorRef& x = *in[0];
    bool is_signed = x.dtype == DataType::kInt8;
    ConstTensor fx = ConstTensor::Allocate(DataType::kFloat32, x.shape), fy = ConstTensor::Allocate(DataType::kFloat32, out[0].shape);
    float* px = static_cast<float*>(fx.storage->data());
    for (int64_t i = 0; i < x.count(); ++i) px[i] = is_signed ? float(x.as<const int8_t>()[i]) : float(x.as<const uint8_t>()[i]);
    TensorRef xr = fx.ref();
    std::vector<const TensorRef*> fin = {&xr};
    std::vector<TensorRef> fout = out;
    fout[0] = fy.ref();
    Run(fin, fout, ctx);
    const float* py = static_cast<const float*>(fy.storage->data());
    for (int64_t i = 0; i < out[0].count(); ++i) {
      if (is_signed) out[0].as<int8_t>()[i] = int8_t(py[i]);
      else out[0].as<uint8_t>()[i] = uint8_t(py[i]);
    }
  }

  bool max_, ceil_mode_, count_include_pad_, column_major_;
};

struct MaxPoolKernel : PoolKernel {
  MaxPoolKernel(const Node& node, int64_t) : PoolKernel(node, true) {}
};
struct AveragePoolKernel : PoolKernel {
  AveragePoolKernel(const Node& node, int64_t) : PoolKernel(node, false) {}
};

class GlobalPoolKernel : public Kernel {
 public:
  GlobalPoolKernel(const Node& node, bool max) : Kernel(node), max_(max) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() < 3) Fail("X must have rank 3 or more; it has shape " + ShapeToString(x.shape));
    Shape s = x.shape;
    for (size_t i = 2; i < s.size(); ++i) s[i] = 1;
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    int64_t planes = x.shape[0] * x.shape[1], size = SizeFrom(x.shape, 2);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, size)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* xc = px + p * size;
        if (max_) {
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < size; ++i) best = xc[i] > best ? xc[i] : best;
          py[p] = best;
        } else {
          float sum = 0;
          for (int64_t i = 0; i < size; ++i) sum += xc[i];
          py[p] = sum / float(size);
        }
      }
    });
  }

 private:
  bool max_;
};

struct GlobalAveragePoolKernel : GlobalPoolKernel {
  GlobalAveragePoolKernel(const Node& node, int64_t) : GlobalPoolKernel(node, false) {}
};
struct GlobalMaxPoolKernel : GlobalPoolKernel {
  GlobalMaxPoolKernel(const Node& node, int64_t) : GlobalPoolKernel(node, true) {}
};

}  // namespace

GEBE_CPU_KERNEL("MaxPool", MaxPoolKernel);
GEBE_CPU_KERNEL("AveragePool", AveragePoolKernel);
GEBE_CPU_KERNEL("GlobalAveragePool", GlobalAveragePoolKernel);
GEBE_CPU_KERNEL("GlobalMaxPool", GlobalMaxPoolKernel);

}  // namespace gebe::cpu
