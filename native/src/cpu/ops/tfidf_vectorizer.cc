// TfIdfVectorizer (opset 9; scikit-learn text pipelines through sklearn-onnx): counts, per row of
// integer tokens, the n-grams of a pool given as attributes (token n-grams, or n-grams of tokens
// `skip` apart for each skip up to max_skip_count), each into its output column, then weighs the
// counts (TF: as they are; IDF: present or not, times the column's weight; TFIDF: count times
// weight). The pool becomes a trie at load; a unigram counts once, not once per skip, as ONNX's
// reference and ONNX Runtime count. String tokens are refused (the engine has no STRING tensors).
#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// A trie node: the n-gram ending here (1-based, 0 when this prefix is no n-gram of the pool) and
// the tokens that continue it.
struct Gram {
  int64_t id = 0;
  std::map<int64_t, std::unique_ptr<Gram>> next;
};

class TfIdfVectorizerKernel : public Kernel {
 public:
  TfIdfVectorizerKernel(const Node& node, int64_t)
      : Kernel(node), min_length_(node.get_int("min_gram_length", 0)), max_length_(node.get_int("max_gram_length", 0)),
        max_skip_(node.get_int("max_skip_count", 0)), columns_(node.get_ints("ngram_indexes")) {
    const std::string mode = node.get_string("mode", "");
    if (mode == "TF") mode_ = Mode::kTf;
    else if (mode == "IDF") mode_ = Mode::kIdf;
    else if (mode == "TFIDF") mode_ = Mode::kTfIdf;
    else Fail("mode must be 'TF', 'IDF' or 'TFIDF' but is '" + mode + "'");
    if (node.has("pool_strings")) Fail("pool_strings needs STRING tensors, which the cpu engine does not have (pool_int64s works)");
    if (min_length_ < 1 || max_length_ < min_length_) Fail("min_gram_length must be 1 or more and max_gram_length at least min_gram_length");
    // The trie is as deep as the longest n-gram counted (and freed recursively).
    if (max_length_ > kLongestGram) Fail("max_gram_length " + std::to_string(max_length_) + " is over the " + std::to_string(kLongestGram) + " the cpu engine takes");
    if (max_skip_ < 0) Fail("max_skip_count must not be negative");
    if (columns_.empty()) Fail("ngram_indexes must name an output column for each n-gram of the pool");
    for (int64_t c : columns_)
      if (c < 0) Fail("ngram_indexes must not be negative");
    width_ = *std::max_element(columns_.begin(), columns_.end()) + 1;
    // weights[i] weighs the pool's i-th n-gram, so its column (as ONNX Runtime does; ONNX's
    // reference reads weights[c] for column c, which differs when ngram_indexes is not 0, 1, 2...).
    // Kept per n-gram: the columns' count is only checked against the memory cap with the output.
    weights_ = node.get_floats("weights");
    if (!weights_.empty() && weights_.size() != columns_.size()) Fail("weights must have one value per n-gram (as ngram_indexes)");
    BuildTrie(node.get_ints("pool_int64s"), node.get_ints("ngram_counts"));
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kInt64, DataType::kInt32});
    if (x.rank() > 2) Fail("X must be [C] or [N, C] tokens; shape " + ShapeToString(x.shape));
    if (x.rank() == 2 && x.shape[0] < 1) Fail("X [N, C] must have at least one row; shape " + ShapeToString(x.shape));
    out[0] = {DataType::kFloat32, x.rank() == 2 ? Shape{x.shape[0], width_} : Shape{width_}, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    const int64_t rows = x.rank() == 2 ? x.shape[0] : 1, length = x.rank() == 0 ? 1 : x.shape.back();
    float* y = out[0].as<float>();
    ctx.pool->ParallelFor(rows, 1, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> tokens(static_cast<size_t>(length)), counts(static_cast<size_t>(width_));
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t i = 0; i < length; ++i) tokens[size_t(i)] = ReadInt(x, r * length + i);
        std::fill(counts.begin(), counts.end(), 0);
        Count(tokens, counts);
        // Each n-gram's column from its count and weight; columns no n-gram names stay 0.
        float* row = y + r * width_;
        std::fill(row, row + width_, 0.f);
        for (size_t i = 0; i < columns_.size(); ++i) {
          const int64_t n = counts[size_t(columns_[i])];
          const float w = mode_ == Mode::kTf || weights_.empty() ? 1.f : weights_[i];
          row[columns_[i]] = mode_ == Mode::kIdf ? (n > 0 ? w : 0.f) : float(n) * w;
        }
      }
    });
  }

 private:
  enum class Mode { kTf, kIdf, kTfIdf };
  static constexpr int64_t kLongestGram = 256;

  static int64_t ReadInt(const TensorRef& t, int64_t i) {
    return t.dtype == DataType::kInt64 ? t.as<const int64_t>()[i] : int64_t(t.as<const int32_t>()[i]);
  }

  // The pool holds, from ngram_counts[k], the n-grams of length k + 1, one after another. Ids run
  // over every n-gram of the pool in order (lengths outside [min, max] take ids too, but are not
  // put in the trie), and id i counts into column ngram_indexes[i - 1].
  void BuildTrie(const std::vector<int64_t>& pool, const std::vector<int64_t>& starts) {
    if (pool.empty()) Fail("pool_int64s must hold the n-grams to count");
    int64_t id = 1;
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t begin = starts[k], end = k + 1 < starts.size() ? starts[k + 1] : int64_t(pool.size()), length = int64_t(k) + 1;
      if (begin < 0 || end < begin || end > int64_t(pool.size())) Fail("ngram_counts must be increasing offsets into pool_int64s");
      const int64_t grams = (end - begin) / length;
      if (length < min_length_ || length > max_length_) {
        id += grams;
        continue;
      }
      for (int64_t g = 0; g < grams; ++g, ++id) {
        Gram* at = &root_;
        for (int64_t i = 0; i < length; ++i) {
          std::unique_ptr<Gram>& next = at->next[pool[size_t(begin + g * length + i)]];
          if (!next) next = std::make_unique<Gram>();
          at = next.get();
        }
        if (id > int64_t(columns_.size())) Fail("ngram_indexes has " + std::to_string(columns_.size()) + " columns for a pool of more n-grams");
        at->id = id;
      }
    }
  }

  // Every n-gram of the row at each skip distance (1 = neighbouring tokens); unigrams only at
  // distance 1.
  void Count(const std::vector<int64_t>& tokens, std::vector<int64_t>& counts) const {
    const int64_t length = int64_t(tokens.size());
    int64_t shortest = min_length_;
    for (int64_t distance = 1; distance <= max_skip_ + 1; ++distance) {
      for (int64_t start = 0; start < length; ++start) {
        if (start + distance * (shortest - 1) >= length) break;
        const Gram* at = &root_;
        for (int64_t size = 1, i = start; size <= max_length_ && i < length && !at->next.empty(); ++size, i += distance) {
          const auto it = at->next.find(tokens[size_t(i)]);
          if (it == at->next.end()) break;
          at = it->second.get();
          if (size >= shortest && at->id != 0) ++counts[size_t(columns_[size_t(at->id - 1)])];
        }
      }
      if (shortest == 1 && ++shortest > max_length_) break;
    }
  }

  int64_t min_length_, max_length_, max_skip_;
  std::vector<int64_t> columns_;
  std::vector<float> weights_;  // per n-gram of the pool, or none (each weighs 1)
  int64_t width_ = 0;
  Mode mode_ = Mode::kTf;
  Gram root_;
};

}  // namespace

GEBE_CPU_KERNEL("TfIdfVectorizer", TfIdfVectorizerKernel);

}  // namespace gebe::cpu
