// Runs of a broadcast binary operation's output along which each operand advances with a
// constant step, for the element-wise kernels (elementwise.cc) and PRelu (activation.cc).
#pragma once

#include <algorithm>
#include <vector>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

// Calls fn(out_index_begin, count, a_offset, a_step, b_offset, b_step) over runs of the output
// where each input advances with a constant step (0 or 1), so inner loops stay simple and vectorise.
template <typename Fn>
void ForEachBroadcastRun(const Shape& out, const Shape& a, const Shape& b, ThreadPool* pool, Fn fn) {
  int64_t total = ElementCount(out);
  if (total == 0) return;
  if (a == out && b == out) {
    pool->ParallelFor(total, kParallelGrain, [&](int64_t s, int64_t e) { fn(s, e - s, s, 1, s, 1); });
    return;
  }
  int64_t na = ElementCount(a), nb = ElementCount(b);
  if (na == 1 && b == out) {
    pool->ParallelFor(total, kParallelGrain, [&](int64_t s, int64_t e) { fn(s, e - s, 0, 0, s, 1); });
    return;
  }
  if (nb == 1 && a == out) {
    pool->ParallelFor(total, kParallelGrain, [&](int64_t s, int64_t e) { fn(s, e - s, s, 1, 0, 0); });
    return;
  }
  // Dims of one element dropped, and neighbours that both operands read alike merged (each
  // operand contiguous across the two, or broadcast along both): a squeeze-and-excitation
  // [N, C, H, W] × [N, C, 1, 1] runs as N·C rows of H·W, not N·C·H rows of W.
  const auto sa_full = BroadcastStrides(a, out), sb_full = BroadcastStrides(b, out);
  Shape shape;
  std::vector<int64_t> sa, sb;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    if (!shape.empty() && sa.back() == sa_full[d] * out[d] && sb.back() == sb_full[d] * out[d]) {
      shape.back() *= out[d];
      sa.back() = sa_full[d];
      sb.back() = sb_full[d];
      continue;
    }
    shape.push_back(out[d]);
    sa.push_back(sa_full[d]);
    sb.push_back(sb_full[d]);
  }
  if (shape.empty()) {
    fn(0, 1, 0, 0, 0, 0);
    return;
  }
  const size_t rank = shape.size();
  const int64_t inner = shape[rank - 1];
  const int64_t rows = total / inner;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1));
  pool->ParallelFor(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t oa, ob;
      BroadcastRowOffsets(r, shape, sa, sb, &oa, &ob);
      fn(r * inner, inner, oa, sa[rank - 1], ob, sb[rank - 1]);
    }
  });
}

}  // namespace gebe::cpu
