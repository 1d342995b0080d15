// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes; 18+: axes, keep_aspect_ratio_policy;
// 19+: half_pixel_symmetric): nearest in any number of dims and
// linear and cubic (cubic_coeff_a, exclude_outside) over the last two dims, with the coordinate
// transformation and nearest rounding modes ONNX defines. tf_crop_and_resize samples the box `roi`
// names (normalized start and end per dim); an output whose source lies outside the input in any
// dim is extrapolation_value, as ONNX's reference and ONNX Runtime give.
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class ResizeKernel : public Kernel {
 public:
  ResizeKernel(const Node& node, int64_t opset) : Kernel(node), opset_(opset) {
    mode_ = node.get_string("mode", "nearest");
    coord_ = node.get_string("coordinate_transformation_mode", opset < 11 ? "asymmetric" : "half_pixel");
    nearest_ = node.get_string("nearest_mode", opset < 11 ? "floor" : "round_prefer_floor");
    if (mode_ != "nearest" && mode_ != "linear" && mode_ != "cubic") Fail("mode '" + mode_ + "' is not one of nearest, linear, cubic");
    cubic_a_ = node.get_float("cubic_coeff_a", -0.75f);
    exclude_outside_ = node.get_int("exclude_outside", 0) != 0;
    extrapolation_ = node.get_float("extrapolation_value", 0.f);
    static const char* coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                                   "half_pixel_symmetric", "tf_crop_and_resize"};
    bool ok = false;
    for (const char* c : coords) ok = ok || coord_ == c;
    if (!ok) Fail("coordinate_transformation_mode '" + coord_ + "' is not supported");
    crop_ = coord_ == "tf_crop_and_resize";
    if (crop_ && opset < 11) Fail("tf_crop_and_resize needs the roi input of opset 11");
    if (nearest_ != "round_prefer_floor" && nearest_ != "round_prefer_ceil" && nearest_ != "floor" && nearest_ != "ceil") {
      Fail("nearest_mode '" + nearest_ + "' is not supported");
    }
    if (exclude_outside_ && mode_ != "cubic") Fail("exclude_outside=1 is supported with mode 'cubic' only");
    if (node.has("antialias") && node.get_int("antialias", 0) != 0) Fail("antialias=1 is not supported");
    axes_ = node.get_ints("axes");
    policy_ = node.get_string("keep_aspect_ratio_policy", "stretch");
    if (policy_ != "stretch" && policy_ != "not_larger" && policy_ != "not_smaller") {
      Fail("keep_aspect_ratio_policy '" + policy_ + "' is not one of stretch, not_larger, not_smaller");
    }
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (!Resolve(in)) return false;
    out[0] = {x.dtype, out_shape_, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    Resolve(in);
    const TensorRef& x = *in[0];
    size_t rank = x.shape.size();
    // Per dim: source coordinate of every output index, and (tf_crop_and_resize) whether it lies
    // outside the input.
    std::vector<std::vector<float>> coord(rank);
    std::vector<std::vector<char>> outside(rank);
    for (size_t d = 0; d < rank; ++d) {
      coord[d].resize(size_t(out_shape_[d]));
      outside[d].assign(size_t(out_shape_[d]), 0);
      for (int64_t i = 0; i < out_shape_[d]; ++i) {
        const float c = Original(float(i), d, x.shape[d], out_shape_[d]);
        coord[d][size_t(i)] = c;
        outside[d][size_t(i)] = crop_ && !(c >= 0 && c <= float(x.shape[d] - 1));
      }
    }
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    auto xs = Strides(x.shape);
    if (mode_ == "nearest") {
      std::vector<std::vector<int64_t>> index(rank);
      for (size_t d = 0; d < rank; ++d) {
        for (float c : coord[d]) index[d].push_back(std::clamp<int64_t>(Nearest(c, scales_[d]), 0, x.shape[d] - 1));
      }
      if (rank == 0) {
        py[0] = px[0];
        return;
      }
      // Row by row of the last dim. Each range of rows finds its first row's index in the leading
      // dims by division once and steps it after that (a division per dim a row cost more than
      // copying YOLO's rows of 32); a row with the same source as the one before is a copy of it
      // (every second row of a 2× upsample), and where each source column is repeated `repeat`
      // times in order (an integer upscale) the row is written without the index table.
      const int64_t ow = out_shape_[rank - 1], rows = out[0].count() / std::max<int64_t>(1, ow);
      const std::vector<int64_t>& columns = index[rank - 1];
      const std::vector<char>& column_away = outside[rank - 1];
      const int64_t repeat = crop_ ? 0 : RepeatOf(columns, x.shape[rank - 1]);
      ctx.pool->ParallelFor(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, ow)), [&](int64_t r0, int64_t r1) {
        std::vector<int64_t> at(rank, 0);  // the row's index in the leading dims
        for (int64_t rem = r0, d = int64_t(rank) - 2; d >= 0; --d) {
          at[size_t(d)] = rem % out_shape_[size_t(d)];
          rem /= out_shape_[size_t(d)];
        }
        int64_t last_src = -1;
        for (int64_t r = r0; r < r1; ++r) {
          int64_t src = 0;
          bool away = false;
          for (size_t d = 0; d + 1 < rank; ++d) {
            src += index[d][size_t(at[d])] * xs[d];
            away = away || outside[d][size_t(at[d])];
          }
          for (size_t d = rank - 1; d-- > 0;) {  // the next row's index
            if (++at[d] < out_shape_[d]) break;
            at[d] = 0;
          }
          float* dst = py + r * ow;
          if (away) {
            std::fill(dst, dst + ow, extrapolation_);
            last_src = -1;
            continue;
          }
          if (src == last_src) {
            std::memcpy(dst, dst - ow, sizeof(float) * size_t(ow));
            continue;
          }
          last_src = src;
          const float* row = px + src;
          if (repeat == 2) {
            for (int64_t c = 0; c < ow / 2; ++c) dst[2 * c] = dst[2 * c + 1] = row[c];
          } else if (repeat > 0) {
            for (int64_t c = 0; c < ow; ++c) dst[c] = row[c / repeat];
          } else if (!crop_) {
            for (int64_t c = 0; c < ow; ++c) dst[c] = row[columns[size_t(c)]];
          } else {
            for (int64_t c = 0; c < ow; ++c) dst[c] = column_away[size_t(c)] ? extrapolation_ : row[columns[size_t(c)]];
          }
        }
      });
      return;
    }
    // Linear and cubic over the last two dims (the leading dims must keep their size).
    for (size_t d = 0; d + 2 < rank; ++d) {
      if (out_shape_[d] != x.shape[d]) Fail(mode_ + " resize is supported over the last two dims only");
      if (crop_ && (roi_start_[d] != 0.f || roi_end_[d] != 1.f)) Fail(mode_ + " tf_crop_and_resize crops the last two dims only (roi 0 to 1 elsewhere)");
    }
    if (rank < 2) Fail(mode_ + " resize needs rank 2 or more");
    const std::vector<char>&out_y = outside[rank - 2], &out_x = outside[rank - 1];
    if (mode_ == "cubic") return RunCubic(x, out[0], coord[rank - 2], coord[rank - 1], out_y, out_x, ctx);
    int64_t ih = x.shape[rank - 2], iw = x.shape[rank - 1], oh = out_shape_[rank - 2], ow = out_shape_[rank - 1];
    int64_t planes = SizeTo(x.shape, rank - 2);
    struct Tap { int64_t i0, i1; float w; };
    auto taps = [&](const std::vector<float>& c, int64_t n) {
      std::vector<Tap> t;
      for (float v : c) {
        v = std::clamp(v, 0.f, float(n - 1));
        int64_t i0 = FromReal<int64_t>(std::floor(v));
        int64_t i1 = std::min(i0 + 1, n - 1);
        t.push_back({i0, i1, v - float(i0)});
      }
      return t;
    };
    auto ty = taps(coord[rank - 2], ih), tx = taps(coord[rank - 1], iw);
    bool any_outside_x = false;
    for (char c : out_x) any_outside_x = any_outside_x || c;
    // Separable: each input row a row needs is interpolated across once into one of two row
    // buffers (an upsampling by 8 reuses it for 8 output rows), then each output row is the
    // vertical blend of its two. The same products and sums per output as blending its four
    // neighbours directly, so the same values.
    ctx.pool->ParallelFor(planes, 1, [&](int64_t p0, int64_t p1) {
      thread_local std::vector<float> buffers;
      buffers.resize(size_t(2 * ow));
      float* slot[2] = {buffers.data(), buffers.data() + ow};
      for (int64_t p = p0; p < p1; ++p) {
        const float* src = px + p * ih * iw;
        float* dst = py + p * oh * ow;
        int64_t key[2] = {-1, -1};  // the input row each buffer holds
        // Input row r across the output columns, keeping the buffer that holds row `keep`.
        auto across = [&](int64_t r, int64_t keep) -> const float* {
          for (int k = 0; k < 2; ++k)
            if (key[k] == r) return slot[k];
          const int k = key[0] == keep ? 1 : 0;
          const float* row = src + r * iw;
          float* h = slot[k];
          for (int64_t xx = 0; xx < ow; ++xx) {
            const Tap& b = tx[size_t(xx)];
            h[xx] = row[b.i0] * (1 - b.w) + row[b.i1] * b.w;
          }
          key[k] = r;
          return h;
        };
        for (int64_t y = 0; y < oh; ++y) {
          float* out = dst + y * ow;
          if (out_y[size_t(y)]) {
            std::fill(out, out + ow, extrapolation_);
            continue;
          }
          const Tap& a = ty[size_t(y)];
          const float* top = across(a.i0, a.i1);
          const float* bottom = across(a.i1, a.i0);
          const float wa = a.w;
          for (int64_t xx = 0; xx < ow; ++xx) out[xx] = top[xx] * (1 - wa) + bottom[xx] * wa;
          if (any_outside_x)
            for (int64_t xx = 0; xx < ow; ++xx)
              if (out_x[size_t(xx)]) out[xx] = extrapolation_;
        }
      }
    });
  }

 private:
  // Four taps per output coordinate (edge-clamped indices), Keys' cubic with coefficient A;
  // with exclude_outside the taps outside the input get weight 0 and the rest are renormalised.
  struct CubicTaps { int64_t index[4]; float weight[4]; };
  std::vector<CubicTaps> Cubic(const std::vector<float>& coord, int64_t n) const {
    const float A = cubic_a_;
    std::vector<CubicTaps> taps;
    for (float v : coord) {
      float f = std::floor(v), t = v - f;
      float d[4] = {t + 1, t, 1 - t, 2 - t};
      CubicTaps c;
      float sum = 0;
      for (int k = 0; k < 4; ++k) {
        float x = d[k];
        float w = x <= 1 ? ((A + 2) * x - (A + 3)) * x * x + 1 : ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
        int64_t i = FromReal<int64_t>(f) - 1 + k;  // FromReal: a roi from the request can make f NaN or huge
        if (exclude_outside_ && (i < 0 || i >= n)) w = 0;
        c.index[k] = std::clamp<int64_t>(i, 0, n - 1);
        c.weight[k] = w;
        sum += w;
      }
      if (exclude_outside_ && sum != 0) for (float& w : c.weight) w /= sum;
      taps.push_back(c);
    }
    return taps;
  }

  void RunCubic(const TensorRef& x, TensorRef& o, const std::vector<float>& cy, const std::vector<float>& cx, const std::vector<char>& out_y,
                const std::vector<char>& out_x, const RunContext& ctx) {
    size_t rank = x.shape.size();
    int64_t ih = x.shape[rank - 2], iw = x.shape[rank - 1], oh = o.shape[rank - 2], ow = o.shape[rank - 1];
    auto ty = Cubic(cy, ih), tx = Cubic(cx, iw);
    const float* px = x.as<const float>();
    float* py = o.as<float>();
    ctx.pool->ParallelFor(SizeTo(x.shape, rank - 2), 1, [&](int64_t p0, int64_t p1) {
      std::vector<float> rows(size_t(ih * ow));  // horizontal pass first
      for (int64_t p = p0; p < p1; ++p) {
        const float* src = px + p * ih * iw;
        for (int64_t y = 0; y < ih; ++y)
          for (int64_t xx = 0; xx < ow; ++xx) {
            const CubicTaps& t = tx[size_t(xx)];
            float v = 0;
            for (int k = 0; k < 4; ++k) v += src[y * iw + t.index[k]] * t.weight[k];
            rows[size_t(y * ow + xx)] = v;
          }
        float* dst = py + p * oh * ow;
        for (int64_t y = 0; y < oh; ++y) {
          const CubicTaps& t = ty[size_t(y)];
          for (int64_t xx = 0; xx < ow; ++xx) {
            if (out_y[size_t(y)] || out_x[size_t(xx)]) {
              dst[y * ow + xx] = extrapolation_;
              continue;
            }
            float v = 0;
            for (int k = 0; k < 4; ++k) v += rows[size_t(t.index[k] * ow + xx)] * t.weight[k];
            dst[y * ow + xx] = v;
          }
        }
      }
    });
  }

  bool Resolve(const std::vector<const TensorRef*>& in) {
    const TensorRef& x = *in[0];
    size_t rank = x.shape.size();
    const TensorRef* scales = nullptr;
    const TensorRef* sizes = nullptr;
    if (opset_ < 11) {
      scales = &Input(in, 1, "scales");
    } else {
      if (in.size() > 2 && in[2] && in[2]->count() > 0) scales = in[2];
      if (in.size() > 3 && in[3] && in[3]->count() > 0) sizes = in[3];
    }
    if (!scales && !sizes) Fail("one of scales or sizes is required");
    if (scales && sizes) Fail("only one of scales and sizes may be given");
    if ((scales && !scales->data) || (sizes && !sizes->data)) return false;
    // Opset 18: scales and sizes may name only `axes`; the other dims keep their size.
    std::vector<size_t> axes;
    for (int64_t a : axes_) axes.push_back(size_t(NormalizeAxis(*this, a, int64_t(rank), "axes value")));
    if (axes.empty()) {
      for (size_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    out_shape_ = x.shape;
    scales_.assign(rank, 1.f);
    // roi (tf_crop_and_resize only): starts then ends, one pair per resized axis, normalized. It
    // moves values, not the shape, so Infer may run before it is known.
    roi_start_.assign(rank, 0.f);
    roi_end_.assign(rank, 1.f);
    if (crop_) {
      const TensorRef* roi = in.size() > 1 ? in[1] : nullptr;
      if (roi == nullptr || roi->count() == 0) Fail("tf_crop_and_resize needs the roi input");
      ExpectType(*roi, "roi", {DataType::kFloat32});
      if (size_t(roi->count()) != 2 * axes.size()) {
        Fail("roi has " + std::to_string(roi->count()) + " entries for " + std::to_string(axes.size()) + " resized axes (a start and an end each)");
      }
      if (roi->data != nullptr) {
        for (size_t i = 0; i < axes.size(); ++i) {
          roi_start_[axes[i]] = roi->as<const float>()[i];
          roi_end_[axes[i]] = roi->as<const float>()[axes.size() + i];
        }
      }
    }
    if (scales) {
      ExpectType(*scales, "scales", {DataType::kFloat32});
      if (size_t(scales->count()) != axes.size()) {
        Fail("scales has " + std::to_string(scales->count()) + " entries for " + std::to_string(axes.size()) + " resized axes");
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        size_t d = axes[i];
        scales_[d] = scales->as<const float>()[i];
        if (!(scales_[d] > 0)) Fail("scales must be positive");
        out_shape_[d] = FromReal<int64_t>(std::floor(float(x.shape[d]) * scales_[d]));
      }
    } else {
      auto s = ReadInts(*sizes);
      if (s.size() != axes.size()) {
        Fail("sizes has " + std::to_string(s.size()) + " entries for " + std::to_string(axes.size()) + " resized axes");
      }
      for (int64_t v : s) {
        if (v < 0) Fail("sizes must not be negative");
      }
      // keep_aspect_ratio_policy (opset 18): one scale for every resized axis, the largest that
      // fits in sizes (not_larger) or the smallest that covers them (not_smaller).
      float uniform = policy_ == "not_larger" ? std::numeric_limits<float>::max() : 0.f;
      for (size_t i = 0; i < axes.size(); ++i) {
        float r = x.shape[axes[i]] ? float(s[i]) / float(x.shape[axes[i]]) : 1.f;
        uniform = policy_ == "not_larger" ? std::min(uniform, r) : std::max(uniform, r);
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        size_t d = axes[i];
        out_shape_[d] = policy_ == "stretch" ? s[i] : FromReal<int64_t>(std::floor(uniform * float(x.shape[d]) + 0.5f));
        scales_[d] = policy_ != "stretch" ? uniform : x.shape[d] ? float(s[i]) / float(x.shape[d]) : 1.f;
      }
    }
    // An empty dim has nothing to sample from (and the kernels would read outside X): refused, as
    // ONNX Runtime refuses it, unless the output is empty along it too.
    for (size_t d = 0; d < rank; ++d) {
      if (x.shape[d] == 0 && out_shape_[d] != 0) {
        Fail("X's dim " + std::to_string(d) + " is 0 but the output's would be " + std::to_string(out_shape_[d]) +
             "; an empty dim can only be resized to 0");
      }
    }
    return true;
  }

  // ONNX defines the resized length as in_len * scale before flooring; align_corners and
  // pytorch_half_pixel use that real-valued length.
  float Original(float x, size_t d, int64_t in_len, int64_t out_int) const {
    const float scale = scales_[d];
    float out_len = float(in_len) * scale;
    if (crop_) {
      const float start = roi_start_[d], end = roi_end_[d], last = float(in_len - 1);
      return out_int > 1 ? start * last + x * (end - start) * last / float(out_int - 1) : 0.5f * (start + end) * last;
    }
    if (coord_ == "half_pixel_symmetric") {
      float adjustment = float(out_int) / out_len;
      float center = float(in_len) / 2;
      return center * (1 - adjustment) + (x + 0.5f) / scale - 0.5f;
    }
    if (coord_ == "half_pixel") return (x + 0.5f) / scale - 0.5f;
    if (coord_ == "pytorch_half_pixel") return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.f;
    if (coord_ == "align_corners") return out_len == 1 ? 0.f : x * float(in_len - 1) / (out_len - 1);
    if (coord_ == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
    return x / scale;
  }

  // r when the columns are each source column r times in order (columns[c] == c / r for every c,
  // and every column of the source used: an integer upscale), else 0.
  static int64_t RepeatOf(const std::vector<int64_t>& columns, int64_t in) {
    const int64_t out = int64_t(columns.size());
    if (in <= 0 || out % in != 0 || out / in < 2) return 0;
    const int64_t r = out / in;
    for (int64_t c = 0; c < out; ++c)
      if (columns[size_t(c)] != c / r) return 0;
    return r;
  }

  int64_t Nearest(float v, float scale) const {
    if (nearest_ == "floor") return FromReal<int64_t>(std::floor(v));
    if (nearest_ == "ceil") return FromReal<int64_t>(std::ceil(v));
    float f = std::floor(v);
    if (v - f == 0.5f) return nearest_ == "round_prefer_ceil" ? FromReal<int64_t>(f) + 1 : FromReal<int64_t>(f);
    return FromReal<int64_t>(std::round(v));
  }

  int64_t opset_;
  std::string mode_, coord_, nearest_, policy_;
  std::vector<int64_t> axes_;
  float cubic_a_ = -0.75f;
  bool exclude_outside_ = false;
  bool crop_ = false;  // tf_crop_and_resize
  float extrapolation_ = 0.f;
  std::vector<float> roi_start_, roi_end_;
  Shape out_shape_;
  std::vector<float> scales_;
};

// Upsample (opsets 7-9, Resize's predecessor): Resize of opset 10 (asymmetric coordinates,
// nearest rounds down) with `scales` as an input (opset 9) or an attribute (7 and 8).
class UpsampleKernel : public ResizeKernel {
 public:
  UpsampleKernel(const Node& node, int64_t opset) : ResizeKernel(node, 10), scales_attr_(node.get_floats("scales")) {
    if (opset < 9 && scales_attr_.empty()) Fail("the scales attribute is required before opset 9");
    if (opset >= 9) scales_attr_.clear();
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override { return ResizeKernel::Infer(WithScales(in), out); }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    ResizeKernel::Run(WithScales(in), out, ctx);
  }

 private:
  std::vector<const TensorRef*> WithScales(const std::vector<const TensorRef*>& in) {
    if (scales_attr_.empty()) return in;
    scales_ref_ = {DataType::kFloat32, {int64_t(scales_attr_.size())}, scales_attr_.data()};
    return {in.empty() ? nullptr : in[0], &scales_ref_};
  }
  std::vector<float> scales_attr_;
  TensorRef scales_ref_;
};

}  // namespace

GEBE_CPU_KERNEL("Resize", ResizeKernel);
GEBE_CPU_KERNEL("Upsample", UpsampleKernel);

}  // namespace gebe::cpu
