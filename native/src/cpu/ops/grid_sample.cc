// GridSample (opset 16, 2-D): X [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]);
// bilinear, nearest (half to even) and bicubic (A = -0.75); padding zeros, border, reflection;
// align_corners. Coordinates are clamped or reflected first (but for bicubic with border padding,
// as in ONNX Runtime), and every tap is read through the padding rule. AffineGrid (opset 20), the
// grid torch's affine_grid makes for it (a spatial transformer).
#include <algorithm>
#include <cmath>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

enum class Pad { kZeros, kBorder, kReflection };
enum class Mode { kBilinear, kNearest, kBicubic };

float Reflect(float x, float lo, float hi) {
  float range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    float dx = lo - x;
    int64_t n = FromReal<int64_t>(dx / range);
    float r = dx - float(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    float dx = x - hi;
    int64_t n = FromReal<int64_t>(dx / range);
    float r = dx - float(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

class GridSampleKernel : public Kernel {
 public:
  GridSampleKernel(const Node& node, int64_t) : Kernel(node) {
    std::string mode = node.get_string("mode", "bilinear"), pad = node.get_string("padding_mode", "zeros");
    // Opset 20 renamed bilinear and bicubic to linear and cubic.
    if (mode == "bilinear" || mode == "linear") mode_ = Mode::kBilinear;
    else if (mode == "nearest") mode_ = Mode::kNearest;
    else if (mode == "bicubic" || mode == "cubic") mode_ = Mode::kBicubic;
    else Fail("mode '" + mode + "' is not one of linear (bilinear), nearest, cubic (bicubic)");
    if (pad == "zeros") pad_ = Pad::kZeros;
    else if (pad == "border") pad_ = Pad::kBorder;
    else if (pad == "reflection") pad_ = Pad::kReflection;
    else Fail("padding_mode '" + pad + "' is not one of zeros, border, reflection");
    align_ = node.get_int("align_corners", 0) != 0;
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& g = Input(in, 1, "grid");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(g, "grid", {DataType::kFloat32});
    if (x.rank() != 4 || g.rank() != 4 || g.shape[3] != 2 || g.shape[0] != x.shape[0]) {
      Fail("X must be [N, C, H, W] and grid [N, Ho, Wo, 2] but are " + ShapeToString(x.shape) + " and " + ShapeToString(g.shape));
    }
    // An empty image has nothing to sample (every mode would read outside X): refused, as ONNX
    // Runtime refuses it, unless the output is empty anyway.
    const bool output_empty = x.shape[0] == 0 || x.shape[1] == 0 || g.shape[1] == 0 || g.shape[2] == 0;
    if ((x.shape[2] == 0 || x.shape[3] == 0) && !output_empty) {
      Fail("X " + ShapeToString(x.shape) + " has an empty image to sample from; H and W must be at least 1");
    }
    out[0] = {x.dtype, {x.shape[0], x.shape[1], g.shape[1], g.shape[2]}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &g = *in[1];
    int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3], ho = g.shape[1], wo = g.shape[2];
    float x_lo = align_ ? 0.f : -0.5f, x_hi = align_ ? float(w - 1) : float(w) - 0.5f;
    float y_lo = align_ ? 0.f : -0.5f, y_hi = align_ ? float(h - 1) : float(h) - 0.5f;
    const float* pg = g.as<const float>();
    float* po = out[0].as<float>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* img = x.as<const float>() + (b * c + ch) * h * w;
        auto pixel = [&](int64_t r, int64_t col) -> float {
          if (pad_ == Pad::kZeros) return r >= 0 && r < h && col >= 0 && col < w ? img[r * w + col] : 0.f;
          if (pad_ == Pad::kReflection) {
            col = FromReal<int64_t>(Reflect(float(col), x_lo, x_hi));
            r = FromReal<int64_t>(Reflect(float(r), y_lo, y_hi));
          }
          col = std::clamp<int64_t>(col, 0, w - 1);
          r = std::clamp<int64_t>(r, 0, h - 1);
          return img[r * w + col];
        };
        for (int64_t i = 0; i < ho * wo; ++i) {
          const float* gp = pg + (b * ho * wo + i) * 2;
          float fx = align_ ? (gp[0] + 1) / 2 * float(w - 1) : ((gp[0] + 1) * float(w) - 1) / 2;
          float fy = align_ ? (gp[1] + 1) / 2 * float(h - 1) : ((gp[1] + 1) * float(h) - 1) / 2;
          // Bicubic reads its 4×4 taps through the padding rule only, as ONNX Runtime does (the
          // taps straddle the edge); the other modes clamp or reflect the coordinate first.
          if (pad_ == Pad::kBorder && mode_ != Mode::kBicubic) {
            fx = std::fmin(std::fmax(fx, 0.f), float(w - 1));
            fy = std::fmin(std::fmax(fy, 0.f), float(h - 1));
          } else if (pad_ == Pad::kReflection) {
            fx = Reflect(fx, x_lo, x_hi);
            fy = Reflect(fy, y_lo, y_hi);
          }
          float v = 0;
          if (mode_ == Mode::kNearest) {
            v = pixel(FromReal<int64_t>(std::nearbyint(fy)), FromReal<int64_t>(std::nearbyint(fx)));
          } else if (mode_ == Mode::kBilinear) {
            int64_t x0 = FromReal<int64_t>(std::floor(fx)), y0 = FromReal<int64_t>(std::floor(fy));
            float wx = fx - float(x0), wy = fy - float(y0);
            v = (pixel(y0, x0) * (1 - wx) + pixel(y0, x0 + 1) * wx) * (1 - wy) + (pixel(y0 + 1, x0) * (1 - wx) + pixel(y0 + 1, x0 + 1) * wx) * wy;
          } else {
            int64_t x0 = FromReal<int64_t>(std::floor(fx)) - 1, y0 = FromReal<int64_t>(std::floor(fy)) - 1;
            float cx[4], cy[4];
            Coefficients(fx - std::floor(fx), cx);
            Coefficients(fy - std::floor(fy), cy);
            for (int r = 0; r < 4; ++r) {
              float row = 0;
              for (int k = 0; k < 4; ++k) row += pixel(y0 + r, x0 + k) * cx[k];
              v += row * cy[r];
            }
          }
          po[(b * c + ch) * ho * wo + i] = v;
        }
      }
    }
  }

 private:
  static void Coefficients(float t, float* c) {
    const float A = -0.75f;
    float d[4] = {t + 1, t, 1 - t, 2 - t};
    for (int k = 0; k < 4; ++k) {
      float x = d[k];
      c[k] = x <= 1 ? ((A + 2) * x - (A + 3)) * x * x + 1 : ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    }
  }

  Mode mode_ = Mode::kBilinear;
  Pad pad_ = Pad::kZeros;
  bool align_ = false;
};

// AffineGrid: for each of N affine matrices theta ([N, 2, 3], or [N, 3, 4] in 3-D), the positions
// of a regular grid over [-1, 1] of `size` ([N, C, H, W] or [N, C, D, H, W], values) moved by
// theta: grid [N, H, W, 2] of (x, y), or [N, D, H, W, 3] of (x, y, z). With align_corners the
// grid's ends are the corner pixels' centres, else their outer edges; a dim of one is at 0.
class AffineGridKernel : public Kernel {
 public:
  AffineGridKernel(const Node& node, int64_t) : Kernel(node), align_corners_(node.get_int("align_corners", 0) != 0) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& theta = Input(in, 0, "theta");
    const TensorRef& size = Input(in, 1, "size");
    ExpectType(theta, "theta", {DataType::kFloat32});
    ExpectType(size, "size", {DataType::kInt64});
    if (!Known(size)) return false;
    const Shape dims = SizeOf(theta, size);
    Shape s = {dims[0]};
    s.insert(s.end(), dims.begin() + 2, dims.end());
    s.push_back(int64_t(dims.size()) - 2);
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const Shape dims = SizeOf(*in[0], *in[1]);
    const bool three = dims.size() == 5;
    const int64_t depth = three ? dims[2] : 1, height = dims[dims.size() - 2], width = dims.back();
    const int64_t cols = three ? 4 : 3, rows = three ? 3 : 2;
    const float* theta = in[0]->as<const float>();
    float* grid = out[0].as<float>();
    for (int64_t n = 0; n < dims[0]; ++n) {
      const float* t = theta + n * rows * cols;
      for (int64_t d = 0; d < depth; ++d) {
        const float z = Base(d, depth);
        for (int64_t h = 0; h < height; ++h) {
          const float y = Base(h, height);
          for (int64_t w = 0; w < width; ++w) {
            const float x = Base(w, width);
            for (int64_t r = 0; r < rows; ++r) {
              const float* tr = t + r * cols;
              *grid++ = three ? tr[0] * x + tr[1] * y + tr[2] * z + tr[3] : tr[0] * x + tr[1] * y + tr[2];
            }
          }
        }
      }
    }
  }

 private:
  // Position i of n along a dim, in [-1, 1].
  float Base(int64_t i, int64_t n) const {
    if (n <= 1) return 0.f;
    return align_corners_ ? -1.f + 2.f * float(i) / float(n - 1) : -1.f + float(2 * i + 1) / float(n);
  }

  Shape SizeOf(const TensorRef& theta, const TensorRef& size) const {
    const Shape dims = ReadInts(size);
    if (dims.size() != 4 && dims.size() != 5) Fail("size must be [N, C, H, W] or [N, C, D, H, W]; it is " + ShapeToString(dims));
    for (int64_t v : dims)
      if (v < 0) Fail("size " + ShapeToString(dims) + " has a negative dimension");
    const Shape want = dims.size() == 4 ? Shape{dims[0], 2, 3} : Shape{dims[0], 3, 4};
    if (theta.shape != want) Fail("theta must be " + ShapeToString(want) + " for size " + ShapeToString(dims) + "; shape " + ShapeToString(theta.shape));
    return dims;
  }

  bool align_corners_;
};

}  // namespace

GEBE_CPU_KERNEL("GridSample", GridSampleKernel);
GEBE_CPU_KERNEL("AffineGrid", AffineGridKernel);

}  // namespace gebe::cpu
