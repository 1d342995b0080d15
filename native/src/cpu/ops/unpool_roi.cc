// MaxUnpool (MaxPool's values put back at its flattened Indices, zeros elsewhere), RoiAlign
// (average or max of bilinear samples over each region of interest, as ONNX Runtime computes it:
// adaptive sampling_ratio, half_pixel or output_half_pixel coordinates) and MaxRoiPool (Fast
// R-CNN's RoI pooling: the maximum over each bin of a region snapped to whole pixels).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class MaxUnpoolKernel : public Kernel {
 public:
  MaxUnpoolKernel(const Node& node, int64_t)
      : Kernel(node), kernel_(node.get_ints("kernel_shape")), strides_(node.get_ints("strides")), pads_(node.get_ints("pads")) {
    if (kernel_.empty()) Fail("kernel_shape is required");
    if (!strides_.empty() && strides_.size() != kernel_.size()) Fail("strides must have one entry per entry of kernel_shape");
    if (!pads_.empty() && pads_.size() != 2 * kernel_.size()) Fail("pads must have two entries per entry of kernel_shape");
    for (size_t d = 0; d < kernel_.size(); ++d) {
      if (kernel_[d] <= 0 || (!strides_.empty() && strides_[d] <= 0)) Fail("kernel_shape and strides must be positive");
    }
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& idx = Input(in, 1, "I");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(idx, "I", {DataType::kInt64});
    if (idx.shape != x.shape) Fail("I must have X's shape " + ShapeToString(x.shape));
    if (size_t(x.rank()) != kernel_.size() + 2) {
      Fail("X must have " + std::to_string(kernel_.size() + 2) + " dims for kernel_shape of " + std::to_string(kernel_.size()));
    }
    Shape shape = Inferred(x);
    if (in.size() > 2 && in[2]) {
      if (!Known(*in[2])) return false;
      Shape given = ReadInts(*in[2]);
      if (given.size() != size_t(x.rank())) Fail("output_shape must have one entry per dim of X");
      for (size_t d = 0; d < given.size(); ++d) {
        if (given[d] < shape[d]) Fail("output_shape " + ShapeToString(given) + " is smaller than the unpooled shape " + ShapeToString(shape));
      }
      shape = given;
    }
    out[0] = {x.dtype, shape, nullptr};
    return true;
  }
  // Indices are flat offsets into the output, whatever output_shape says (as ONNX Runtime does;
  // ONNX's reference instead re-maps them from the unpooled shape).
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef &x = *in[0], &idx = *in[1];
    float* y = out[0].as<float>();
    int64_t total = out[0].count();
    std::memset(y, 0, out[0].bytes());
    for (int64_t i = 0; i < x.count(); ++i) {
      int64_t at = idx.as<const int64_t>()[i];
      if (at < 0 || at >= total) Fail("index " + std::to_string(at) + " is outside the output " + ShapeToString(out[0].shape));
      y[at] = x.as<const float>()[i];
    }
  }

 private:
  Shape Inferred(const TensorRef& x) const {
    size_t s = kernel_.size();
    Shape shape = {x.shape[0], x.shape[1]};
    for (size_t d = 0; d < s; ++d) {
      int64_t stride = strides_.empty() ? 1 : strides_[d];
      int64_t pad = pads_.empty() ? 0 : pads_[d] + pads_[d + s];
      shape.push_back((x.shape[d + 2] - 1) * stride - pad + kernel_[d]);
      if (shape.back() < 0) Fail("pads make the unpooled shape " + ShapeToString(shape) + " negative");
    }
    return shape;
  }

  std::vector<int64_t> kernel_, strides_, pads_;
};

class RoiAlignKernel : public Kernel {
 public:
  RoiAlignKernel(const Node& node, int64_t opset) : Kernel(node) {
    std::string mode = node.get_string("mode", "avg");
    if (mode != "avg" && mode != "max") Fail("mode must be avg or max, not '" + mode + "'");
    max_ = mode == "max";
    out_h_ = node.get_int("output_height", 1);
    out_w_ = node.get_int("output_width", 1);
    ratio_ = node.get_int("sampling_ratio", 0);
    scale_ = node.get_float("spatial_scale", 1.f);
    std::string coords = node.get_string("coordinate_transformation_mode", opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (coords != "half_pixel" && coords != "output_half_pixel") Fail("coordinate_transformation_mode '" + coords + "' is not supported");
    half_pixel_ = coords == "half_pixel";
    if (out_h_ <= 0 || out_w_ <= 0 || ratio_ < 0) Fail("output_height/width must be positive and sampling_ratio not negative");
    if (!std::isfinite(scale_) || scale_ <= 0.f) Fail("spatial_scale must be a positive finite number");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& rois = Input(in, 1, "rois");
    const TensorRef& batch = Input(in, 2, "batch_indices");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(rois, "rois", {DataType::kFloat32});
    ExpectType(batch, "batch_indices", {DataType::kInt64});
    if (x.rank() != 4) Fail("X must be [N, C, H, W]");
    if (rois.rank() != 2 || rois.shape[1] != 4 || batch.count() != rois.shape[0]) Fail("rois must be [R, 4] with one batch index each");
    out[0] = {x.dtype, {rois.shape[0], x.shape[1], out_h_, out_w_}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &rois = *in[1], &batch = *in[2];
    int64_t channels = x.shape[1], h = x.shape[2], w = x.shape[3], n = x.shape[0];
    float* y = out[0].as<float>();
    std::vector<Box> boxes(size_t(rois.shape[0]));
    for (int64_t r = 0; r < rois.shape[0]; ++r) {
      int64_t b = batch.as<const int64_t>()[r];
      if (b < 0 || b >= n) Fail("batch index " + std::to_string(b) + " is out of range for " + std::to_string(n) + " images");
      boxes[size_t(r)] = Measure(rois.as<const float>() + r * 4, r, h, w);
    }
    ctx.pool->ParallelFor(rois.shape[0] * channels, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t r = t / channels, c = t % channels;
        const Box& box = boxes[size_t(r)];
        const float* plane = x.as<const float>() + (batch.as<const int64_t>()[r] * channels + c) * h * w;
        float count = float(std::max<int64_t>(box.grid_h * box.grid_w, 1));
        for (int64_t ph = 0; ph < out_h_; ++ph) {
          for (int64_t pw = 0; pw < out_w_; ++pw) {
            float acc = 0;
            bool first = true;
            for (int64_t iy = 0; iy < box.grid_h; ++iy) {
              float yy = box.y0 + float(ph) * box.bin_h + (float(iy) + 0.5f) * box.bin_h / float(box.grid_h);
              for (int64_t ix = 0; ix < box.grid_w; ++ix) {
                float xx = box.x0 + float(pw) * box.bin_w + (float(ix) + 0.5f) * box.bin_w / float(box.grid_w);
                float v = Sample(plane, h, w, yy, xx);
                if (max_) acc = first ? v : std::max(acc, v);
                else acc += v;
                first = false;
              }
            }
            y[(t * out_h_ + ph) * out_w_ + pw] = max_ ? acc : acc / count;
          }
        }
      }
    });
  }

 private:
  // One region in feature-map coordinates: its corner, bin size and sampling grid per bin.
  struct Box {
    float x0, y0, bin_w, bin_h;
    int64_t grid_w, grid_h;
  };

  // The region of `roi` (x1, y1, x2, y2 in image coordinates). The coordinates come from the
  // request, so they are checked here: a non-finite one has no region, and with sampling_ratio 0
  // the grid grows with the region, so a box of 1e9 pixels would sample for hours. A grid per bin
  // is at most the feature map's extent plus its border (or 64 points, for tiny maps); past that
  // every further point lies outside the map, and the request is refused, naming the region.
  Box Measure(const float* roi, int64_t r, int64_t h, int64_t w) const {
    for (int i = 0; i < 4; ++i) {
      if (!std::isfinite(roi[i])) Fail("roi " + std::to_string(r) + " has a coordinate that is " + (std::isnan(roi[i]) ? "NaN" : "infinite"));
    }
    float offset = half_pixel_ ? 0.5f : 0.f;
    Box box;
    box.x0 = roi[0] * scale_ - offset;
    box.y0 = roi[1] * scale_ - offset;
    float rw = roi[2] * scale_ - offset - box.x0, rh = roi[3] * scale_ - offset - box.y0;
    if (!half_pixel_) {
      rw = std::max(rw, 1.f);
      rh = std::max(rh, 1.f);
    }
    box.bin_h = rh / float(out_h_);
    box.bin_w = rw / float(out_w_);
    double grid_h = ratio_ > 0 ? double(ratio_) : std::ceil(double(box.bin_h));
    double grid_w = ratio_ > 0 ? double(ratio_) : std::ceil(double(box.bin_w));
    double limit_h = double(std::max<int64_t>(h + 2, 64)), limit_w = double(std::max<int64_t>(w + 2, 64));
    if (!std::isfinite(box.x0 + box.y0 + rw + rh) || grid_h > limit_h || grid_w > limit_w) {
      auto points = [](double v) { char text[32]; std::snprintf(text, sizeof text, "%.6g", v); return std::string(text); };
      Fail("roi " + std::to_string(r) + " samples a grid of " + points(grid_h) + " x " + points(grid_w) +
           " points per bin, larger than the " + std::to_string(h) + " x " + std::to_string(w) +
           " feature map; clip the boxes to the image, or lower sampling_ratio");
    }
    // A box of negative extent samples nothing (no grid points, a zero average), as in ONNX Runtime.
    box.grid_h = grid_h > 0 ? int64_t(grid_h) : 0;
    box.grid_w = grid_w > 0 ? int64_t(grid_w) : 0;
    return box;
  }

 private:
  // Bilinear sample (ONNX Runtime's: outside [-1, size] is 0, coordinates clamped at the edge;
  // written so that a NaN is outside too). Max mode takes the largest of the four weighted taps, as
  // ONNX Runtime does.
  float Sample(const float* p, int64_t h, int64_t w, float y, float x) const {
    if (h == 0 || w == 0) return 0.f;  // an empty feature map has nothing to read (ORT answers 0 too)
    if (!(y >= -1.f && y <= float(h) && x >= -1.f && x <= float(w))) return 0.f;
    y = std::max(y, 0.f);
    x = std::max(x, 0.f);
    int64_t y_lo = int64_t(y), x_lo = int64_t(x), y_hi, x_hi;
    if (y_lo >= h - 1) y_hi = y_lo = h - 1, y = float(y_lo);
    else y_hi = y_lo + 1;
    if (x_lo >= w - 1) x_hi = x_lo = w - 1, x = float(x_lo);
    else x_hi = x_lo + 1;
    float ly = y - float(y_lo), lx = x - float(x_lo), hy = 1 - ly, hx = 1 - lx;
    float a = hy * hx * p[y_lo * w + x_lo], b = hy * lx * p[y_lo * w + x_hi], c = ly * hx * p[y_hi * w + x_lo], d = ly * lx * p[y_hi * w + x_hi];
    if (max_) return std::max(std::max(a, b), std::max(c, d));
    return a + b + c + d;
  }

  bool max_ = false, half_pixel_ = true;
  int64_t out_h_, out_w_, ratio_;
  float scale_;
};

// MaxRoiPool: rois [R, 5] of (batch index, x1, y1, x2, y2) in input coordinates, scaled by
// spatial_scale and rounded to pixels (inclusive ends, at least one pixel), cut into
// pooled_shape bins (floor and ceil of the fractional edges, clipped to the map); each output the
// maximum of its bin, 0 for a bin left empty. As Caffe's RoIPool and ONNX Runtime.
class MaxRoiPoolKernel : public Kernel {
 public:
  MaxRoiPoolKernel(const Node& node, int64_t)
      : Kernel(node), pooled_(node.get_ints("pooled_shape")), scale_(node.get_float("spatial_scale", 1.f)) {
    if (pooled_.size() != 2 || pooled_[0] <= 0 || pooled_[1] <= 0) Fail("pooled_shape must be two positive values");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& rois = Input(in, 1, "rois");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(rois, "rois", {DataType::kFloat32});
    if (x.rank() != 4) Fail("X must be [N, C, H, W]; shape " + ShapeToString(x.shape));
    if (rois.rank() != 2 || rois.shape[1] != 5) Fail("rois must be [num_rois, 5] (batch index, x1, y1, x2, y2); shape " + ShapeToString(rois.shape));
    out[0] = {DataType::kFloat32, {rois.shape[0], x.shape[1], pooled_[0], pooled_[1]}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef &x = *in[0], &rois = *in[1];
    const int64_t channels = x.shape[1], height = x.shape[2], width = x.shape[3], ph = pooled_[0], pw = pooled_[1];
    const float* r = rois.as<const float>();
    for (int64_t i = 0; i < rois.shape[0]; ++i) {
      const float b = r[i * 5];
      if (!(b >= 0 && b < float(x.shape[0])) || b != std::floor(b)) {
        Fail("rois[" + std::to_string(i) + "] names batch index " + std::to_string(b) + "; X has " + std::to_string(x.shape[0]));
      }
    }
    float* y = out[0].as<float>();
    ctx.pool->ParallelFor(rois.shape[0] * channels, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t i = t / channels, c = t % channels;
        const float* roi = r + i * 5;
        const float* plane = x.as<const float>() + (int64_t(roi[0]) * channels + c) * height * width;
        const int64_t x1 = Snap(roi[1]), y1 = Snap(roi[2]), x2 = Snap(roi[3]), y2 = Snap(roi[4]);
        const float bin_h = float(std::max<int64_t>(y2 - y1 + 1, 1)) / float(ph), bin_w = float(std::max<int64_t>(x2 - x1 + 1, 1)) / float(pw);
        float* yc = y + t * ph * pw;
        for (int64_t py = 0; py < ph; ++py) {
          const int64_t h0 = std::clamp<int64_t>(int64_t(std::floor(float(py) * bin_h)) + y1, 0, height);
          const int64_t h1 = std::clamp<int64_t>(int64_t(std::ceil(float(py + 1) * bin_h)) + y1, 0, height);
          for (int64_t px = 0; px < pw; ++px) {
            const int64_t w0 = std::clamp<int64_t>(int64_t(std::floor(float(px) * bin_w)) + x1, 0, width);
            const int64_t w1 = std::clamp<int64_t>(int64_t(std::ceil(float(px + 1) * bin_w)) + x1, 0, width);
            float best = h1 > h0 && w1 > w0 ? -std::numeric_limits<float>::infinity() : 0.f;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) best = std::max(best, plane[h * width + w]);
            yc[py * pw + px] = best;
          }
        }
      }
    });
  }

 private:
  // A roi coordinate in pixels of the map, rounded half away from zero, kept in int64 range.
  int64_t Snap(float v) const {
    const float scaled = std::round(v * scale_);
    return std::isfinite(scaled) ? int64_t(std::clamp(scaled, -1e9f, 1e9f)) : 0;
  }

  std::vector<int64_t> pooled_;
  float scale_;
};

}  // namespace

GEBE_CPU_KERNEL("MaxUnpool", MaxUnpoolKernel);
GEBE_CPU_KERNEL("RoiAlign", RoiAlignKernel);
GEBE_CPU_KERNEL("MaxRoiPool", MaxRoiPoolKernel);

}  // namespace gebe::cpu
