// Pooling: MaxPool (with optional Indices), AveragePool (count_include_pad), GlobalAveragePool,
// GlobalMaxPool, LpPool, GlobalLpPool. Max- and AveragePool's 1-D and 2-D paths here, their 3 or
// more spatial dims in pool_nd.cc; LpPool's one path takes any number.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/ops/conv_geometry.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/pool_nd.h"
#include "cpu/ops/pool_rows.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

// A 1-D or 2-D pool's geometry (1-D as one row).
struct Pool2d {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw, peh, pew;
  static Pool2d From(const ConvGeometry& geo) {
    bool one_d = geo.spatial == 1;
    size_t c = one_d ? 0 : 1;
    return {one_d ? 1 : geo.in[0],       geo.in[c],       one_d ? 1 : geo.out[0],      geo.out[c],
            one_d ? 1 : geo.kernel[0],   geo.kernel[c],   one_d ? 1 : geo.stride[0],   geo.stride[c],
            one_d ? 1 : geo.dilation[0], geo.dilation[c], one_d ? 0 : geo.pad_begin[0], geo.pad_begin[c],
            one_d ? 0 : geo.pad_end[0],  geo.pad_end[c]};
  }
};

// Along one dim, for every output: its window's first input position (start: may be negative)
// and the kernel taps inside the input, [t0, t1) (the divisions done once).
struct DimWindows {
  std::vector<int64_t> start, t0, t1;
  DimWindows(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t p)
      : start(size_t(out)), t0(size_t(out)), t1(size_t(out)) {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t x0 = o * s - p;
      start[size_t(o)] = x0;
      t0[size_t(o)] = x0 >= 0 ? 0 : (-x0 + d - 1) / d;
      t1[size_t(o)] = std::min<int64_t>(k, x0 >= in ? 0 : (in - 1 - x0) / d + 1);
    }
  }
  static DimWindows Rows(const Pool2d& g) { return DimWindows(g.ih, g.oh, g.kh, g.sh, g.dh, g.ph); }
  static DimWindows Columns(const Pool2d& g) { return DimWindows(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw); }
  // The outputs whose whole window lies inside the input (k taps): [*a, *b).
  void Interior(int64_t k, int64_t* a, int64_t* b) const {
    const int64_t out = int64_t(start.size());
    int64_t i = 0;
    while (i < out && t0[size_t(i)] != 0) ++i;
    int64_t j = i;
    while (j < out && t0[size_t(j)] == 0 && t1[size_t(j)] == k) ++j;
    *a = i;
    *b = j;
  }
};

// One output's window: top-left input position (y0, x0), and the kernel rows [a0, a1) and
// columns [b0, b1) that fall inside the input.
struct Window {
  int64_t y0 = 0, x0 = 0, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
};

float MaxOf(const float* xc, const Pool2d& g, const Window& w) {
  float best = -std::numeric_limits<float>::infinity();
  for (int64_t a = w.a0; a < w.a1; ++a) {
    const float* row = xc + (w.y0 + a * g.dh) * g.iw;
    for (int64_t b = w.b0; b < w.b1; ++b) best = std::max(best, row[w.x0 + b * g.dw]);
  }
  return best;
}

// The maximum and its flat offset within the plane (the first of equal maxima; -1 for an empty window).
float MaxWithIndexOf(const float* xc, const Pool2d& g, const Window& w, int64_t* index) {
  float best = -std::numeric_limits<float>::infinity();
  *index = -1;
  for (int64_t a = w.a0; a < w.a1; ++a) {
    const float* row = xc + (w.y0 + a * g.dh) * g.iw;
    for (int64_t b = w.b0; b < w.b1; ++b) {
      float v = row[w.x0 + b * g.dw];
      if (v > best || *index < 0) {
        best = v;
        *index = (w.y0 + a * g.dh) * g.iw + w.x0 + b * g.dw;
      }
    }
  }
  return best;
}

// The count an average divides by, along one dim, for the window starting at input position
// `start` (kernel taps [t0, t1) inside the input): with count_include_pad, the taps inside the
// padded input (not the ceil_mode overhang); otherwise those inside the input.
int64_t WindowCount(int64_t start, int64_t t0, int64_t t1, int64_t k, int64_t d, int64_t in, int64_t pad_begin,
                    int64_t pad_end, bool count_include_pad) {
  if (!count_include_pad) return std::max<int64_t>(0, t1 - t0);
  const int64_t h0 = std::max<int64_t>(start, -pad_begin), h1 = std::min<int64_t>(start + (k - 1) * d + 1, in + pad_end);
  return (h1 - h0 + d - 1) / d;
}

float AverageOf(const float* xc, const Pool2d& g, const Window& w, bool count_include_pad) {
  float sum = 0;
  for (int64_t a = w.a0; a < w.a1; ++a) {
    const float* row = xc + (w.y0 + a * g.dh) * g.iw;
    for (int64_t b = w.b0; b < w.b1; ++b) sum += row[w.x0 + b * g.dw];
  }
  const int64_t denom = WindowCount(w.y0, w.a0, w.a1, g.kh, g.dh, g.ih, g.ph, g.peh, count_include_pad) *
                        WindowCount(w.x0, w.b0, w.b1, g.kw, g.dw, g.iw, g.pw, g.pew, count_include_pad);
  return denom > 0 ? sum / float(denom) : 0.f;
}

// AveragePool in two separable passes per plane: every input row's sums over each output
// column's window (tap by tap along the row, one vector add each at stride 1), then every output
// row's sum of those over its window rows, divided by the row count times the column count (the
// window's count in both count_include_pad modes is that product). Per output, AverageOf's
// window walk and count took 20 ns: Inception-v3's nine 3×3 pools were a fifth of its run.
void AveragePlanes(const float* px, float* py, int64_t planes, const Pool2d& g, bool count_include_pad, ThreadPool* pool) {
  const DimWindows rows = DimWindows::Rows(g), cols = DimWindows::Columns(g);
  const TapRanges taps(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw);  // per kernel column, the outputs it reaches
  // Counts are small integers, exact as floats, and so is their product.
  std::vector<float> col_count(size_t(g.ow)), row_count(size_t(g.oh));
  for (int64_t xo = 0; xo < g.ow; ++xo) {
    col_count[size_t(xo)] = float(WindowCount(cols.start[size_t(xo)], cols.t0[size_t(xo)], cols.t1[size_t(xo)], g.kw, g.dw,
                                        g.iw, g.pw, g.pew, count_include_pad));
  }
  for (int64_t y = 0; y < g.oh; ++y) {
    row_count[size_t(y)] = float(WindowCount(rows.start[size_t(y)], rows.t0[size_t(y)], rows.t1[size_t(y)], g.kh, g.dh, g.ih,
                                       g.ph, g.peh, count_include_pad));
  }
  const AveragePlaneGeometry geometry{g.ih, g.iw, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.ph, g.pw, taps.lo.data(), taps.hi.data(),
                                      rows.start.data(), rows.t0.data(), rows.t1.data(), row_count.data(), col_count.data()};
  const AveragePlanesFn planes_fn = ActiveAveragePlanes();
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, g.ih * g.iw)), [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> row_sums;
    row_sums.resize(size_t(g.ih * g.ow));
    planes_fn(px + p0 * g.ih * g.iw, py + p0 * g.oh * g.ow, p1 - p0, geometry, row_sums.data());
  });
}

// The -inf-bordered row MaxStride1Planes takes its columns from: its length, or -1 where the
// window's columns and the padding stretch it far past the input row.
int64_t MaxStride1Span(const Pool2d& g) { return BorderedExtent(g.iw, g.ow, g.kw, g.sw, g.dw, g.pw, 4 * g.iw + 4096); }

// Whether MaxStride1Planes suits g: stride 1, and a bordered row of bounded length.
bool MaxStride1Fits(const Pool2d& g) { return g.sh == 1 && g.sw == 1 && MaxStride1Span(g) > 0; }

void MaxStride1Planes(const float* px, float* py, int64_t planes, const Pool2d& g, ThreadPool* pool) {
  const DimWindows rows = DimWindows::Rows(g);
  const int64_t span = MaxStride1Span(g);
  const MaxStride1Geometry geometry{g.ih, g.iw, g.oh, g.ow, g.kw, g.dw, g.dh, g.pw, span, rows.start.data(), rows.t0.data(), rows.t1.data()};
  const MaxStride1PlanesFn planes_fn = ActiveMaxStride1Planes();
  pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, g.oh * g.ow * g.kh * g.kw)), [&](int64_t p0, int64_t p1) {
    thread_local std::vector<float> padded;
    padded.resize(size_t(span));
    planes_fn(px + p0 * g.ih * g.iw, py + p0 * g.oh * g.ow, p1 - p0, geometry, padded.data());
  });
}

// Whether AveragePlanes suits g: its tap loop runs kw times a row and its row sums take ih × ow
// floats, so a window wider than 64 columns, or row sums far larger than the plane and its output
// (a stride taller than the window), go through the per-output walk below, whose work the input
// bounds.
bool AveragePlanesFit(const Pool2d& g) {
  return g.kw <= 64 && double(g.ih) * double(g.ow) <= 4.0 * (double(g.ih) * double(g.iw) + double(g.oh) * double(g.ow)) + 4096.0;
}

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
    Pool2d g = Pool2d::From(geo);
    int64_t planes = x.shape[0] * x.shape[1];
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    int64_t* pi = out.size() > 1 && out[1].data ? out[1].as<int64_t>() : nullptr;
    const MaxPool2x2PlanesFn planes_2x2 = ActiveMaxPool2x2Planes();
    if (max_ && !pi && planes_2x2 && g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1 &&
        g.ph == 0 && g.pw == 0 && 2 * g.oh <= g.ih && 2 * g.ow <= g.iw) {
      ctx.pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, g.ih * g.iw)), [&](int64_t p0, int64_t p1) {
        planes_2x2(px + p0 * g.ih * g.iw, p1 - p0, g.ih, g.iw, py + p0 * g.oh * g.ow, g.oh, g.ow);
      });
      return;
    }
    if (!max_ && AveragePlanesFit(g)) return AveragePlanes(px, py, planes, g, count_include_pad_, ctx.pool);
    if (max_ && !pi && MaxStride1Fits(g)) return MaxStride1Planes(px, py, planes, g, ctx.pool);
    const DimWindows rows = DimWindows::Rows(g), cols = DimWindows::Columns(g);
    // Output columns whose whole window is inside the row: [xa, xb). MaxPool without indices does
    // them tap by tap over the row (vectorised), leaving only the borders to the per-output loop.
    int64_t xa = 0, xb = 0;
    if (max_ && !pi) cols.Interior(g.kw, &xa, &xb);
    const MaxInteriorFn max_interior = ActiveMaxInterior();
    ctx.pool->ParallelFor(planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, g.oh * g.ow * g.kh * g.kw)),
                          [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* xc = px + p * g.ih * g.iw;
        float* yc = py + p * g.oh * g.ow;
        for (int64_t y = 0; y < g.oh; ++y) {
          Window w;
          w.y0 = rows.start[size_t(y)];
          w.a0 = rows.t0[size_t(y)];
          w.a1 = rows.t1[size_t(y)];
          if (xb > xa) max_interior(xc, g.iw, w.y0, w.a0, w.a1, g.dh, g.kw, g.dw, g.sw, xa * g.sw - g.pw, yc + y * g.ow + xa, xb - xa);
          for (int64_t xo = 0; xo < g.ow; ++xo) {
            if (xo == xa && xb > xa) xo = xb;
            if (xo >= g.ow) break;
            w.x0 = cols.start[size_t(xo)];
            w.b0 = cols.t0[size_t(xo)];
            w.b1 = cols.t1[size_t(xo)];
            float* dst = yc + y * g.ow + xo;
            if (!max_) {
              *dst = AverageOf(xc, g, w, count_include_pad_);
            } else if (!pi) {
              *dst = MaxOf(xc, g, w);
            } else {
              int64_t best_index = -1;
              *dst = MaxWithIndexOf(xc, g, w, &best_index);
              // Indices are flat offsets into X; storage_order=1 counts them column-major within a plane.
              int64_t local = column_major_ ? (best_index % g.iw) * g.ih + best_index / g.iw : best_index;
              pi[p * g.oh * g.ow + y * g.ow + xo] = p * g.ih * g.iw + local;
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
    // A window wholly in the padding has no input, and its FP32 maximum is -inf: the type's lowest.
    const float* py = static_cast<const float*>(fy.storage->data());
    for (int64_t i = 0; i < out[0].count(); ++i) {
      if (is_signed) out[0].as<int8_t>()[i] = FromReal<int8_t>(py[i]);
      else out[0].as<uint8_t>()[i] = FromReal<uint8_t>(py[i]);
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

// The p of LpPool and GlobalLpPool: a float attribute in opset 1, an integer from opset 2 on.
double LpExponent(const Node& node, int64_t opset) {
  const double p = opset < 2 ? double(node.get_float("p", 2.f)) : double(node.get_int("p", 2));
  if (!(p > 0)) throw EngineError(node.label() + ": p must be positive");
  return p;
}

// |x|^p in double (p = 1 and 2 without pow).
double LpTerm(float x, double p) {
  const double v = std::fabs(double(x));
  return p == 1 ? v : p == 2 ? v * v : std::pow(v, p);
}

// The p-th root of such a sum.
float LpRoot(double sum, double p) { return float(p == 1 ? sum : p == 2 ? std::sqrt(sum) : std::pow(sum, 1.0 / p)); }

// GlobalAveragePool, GlobalMaxPool and GlobalLpPool: one value per whole plane, any number of
// spatial dims.
enum class Whole { kAverage, kMax, kLp };

class GlobalPoolKernel : public Kernel {
 public:
  GlobalPoolKernel(const Node& node, Whole kind, double p = 0) : Kernel(node), kind_(kind), p_(p) {}
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
        // The mean as ReduceMean takes it over trailing axes (SumRow, in double). One float sum
        // carried through the plane waited on each add: 165 µs for MobileNet's 16 × 112 × 112
        // stem output, ONNX Runtime 13.
        py[p] = kind_ == Whole::kMax ? MaxSkippingNaN(xc, size)
                : kind_ == Whole::kLp ? LpRoot(LpSumOf(xc, size), p_)
                                      : float(SumRow(xc, size) / double(size));
      }
    });
  }

 private:
  double LpSumOf(const float* x, int64_t n) const {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += LpTerm(x[i], p_);
    return sum;
  }

  Whole kind_;
  double p_;
};

struct GlobalAveragePoolKernel : GlobalPoolKernel {
  GlobalAveragePoolKernel(const Node& node, int64_t) : GlobalPoolKernel(node, Whole::kAverage) {}
};
struct GlobalMaxPoolKernel : GlobalPoolKernel {
  GlobalMaxPoolKernel(const Node& node, int64_t) : GlobalPoolKernel(node, Whole::kMax) {}
};
struct GlobalLpPoolKernel : GlobalPoolKernel {
  GlobalLpPoolKernel(const Node& node, int64_t opset) : GlobalPoolKernel(node, Whole::kLp, LpExponent(node, opset)) {}
};

// LpPool: each window's Lp norm over the input positions inside it (padding adds nothing), with
// Max- and AveragePool's geometry (auto_pad, dilations, ceil_mode), any number of spatial dims:
// per output, the window's extent inside the input along each dim, then its taps in order.
class LpPoolKernel : public Kernel {
 public:
  LpPoolKernel(const Node& node, int64_t opset) : Kernel(node), attrs_(node), p_(LpExponent(node, opset)) {
    ceil_mode_ = node.get_int("ceil_mode", 0) != 0;
    if (attrs_.kernel.empty()) Fail("kernel_shape is required");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() != int(attrs_.kernel.size()) + 2) {
      Fail("X must be [N, C] and " + std::to_string(attrs_.kernel.size()) + " spatial dims, as kernel_shape; shape " + ShapeToString(x.shape));
    }
    const ConvGeometry g = Geometry(x);
    Shape s = {x.shape[0], x.shape[1]};
    s.insert(s.end(), g.out.begin(), g.out.end());
    out[0] = {x.dtype, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    const ConvGeometry g = Geometry(x);
    const size_t dims = size_t(g.spatial);
    // Per dim, each output's window start and its taps inside the input (Max- and AveragePool's).
    std::vector<DimWindows> windows;
    for (size_t d = 0; d < dims; ++d) windows.emplace_back(g.in[d], g.out[d], g.kernel[d], g.stride[d], g.dilation[d], g.pad_begin[d]);
    const int64_t plane_in = ElementCount(g.in), plane_out = ElementCount(g.out), window = ElementCount(g.kernel);
    const std::vector<int64_t> in_strides = Strides(g.in);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    const int64_t planes = x.shape[0] * x.shape[1];
    ctx.pool->ParallelFor(planes * plane_out, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, window)), [&](int64_t o0, int64_t o1) {
      std::vector<int64_t> taps(dims);
      for (int64_t o = o0; o < o1; ++o) {
        const float* xc = px + (o / plane_out) * plane_in;
        // The window's first input element inside the input, and its taps there per dim.
        int64_t rem = o % plane_out, inside = 1, lead = 0;
        for (size_t d = dims; d-- > 0;) {
          const size_t at = size_t(rem % g.out[d]);
          rem /= g.out[d];
          const DimWindows& w = windows[d];
          taps[d] = std::max<int64_t>(0, w.t1[at] - w.t0[at]);
          inside *= taps[d];
          lead += (w.start[at] + w.t0[at] * g.dilation[d]) * in_strides[d];
        }
        double sum = 0;
        for (int64_t t = 0; t < inside; ++t) {
          int64_t r = t, offset = lead;
          for (size_t d = dims; d-- > 0;) {
            offset += (r % taps[d]) * g.dilation[d] * in_strides[d];
            r /= taps[d];
          }
          sum += LpTerm(xc[offset], p_);
        }
        py[o] = LpRoot(sum, p_);
      }
    });
  }

 private:
  ConvGeometry Geometry(const TensorRef& x) const {
    return ResolveGeometry(*this, attrs_, Shape(x.shape.begin() + 2, x.shape.end()), {}, ceil_mode_);
  }

  ConvAttributes attrs_;
  double p_;
  bool ceil_mode_ = false;
};

}  // namespace

GEBE_CPU_KERNEL("MaxPool", MaxPoolKernel);
GEBE_CPU_KERNEL("AveragePool", AveragePoolKernel);
GEBE_CPU_KERNEL("GlobalAveragePool", GlobalAveragePoolKernel);
GEBE_CPU_KERNEL("GlobalMaxPool", GlobalMaxPoolKernel);
GEBE_CPU_KERNEL("LpPool", LpPoolKernel);
GEBE_CPU_KERNEL("GlobalLpPool", GlobalLpPoolKernel);

}  // namespace gebe::cpu
