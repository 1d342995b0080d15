// The classification extension (executor/classification.h): the order of the classes (ties and
// NaN included), k past the class count, batched and unbatched shapes, labels, every element type
// it takes and the wording of those it refuses, and the printing of values (Number#toFixed(9)).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "executor/classification.h"

using namespace gebe;

namespace {

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// The elements of a BYTES tensor in KServe's layout.
std::vector<std::string> Strings(const std::vector<uint8_t>& bytes) {
  std::vector<std::string> out;
  for (size_t at = 0; at + 4 <= bytes.size();) {
    uint32_t length;
    std::memcpy(&length, bytes.data() + at, 4);
    out.emplace_back(reinterpret_cast<const char*>(bytes.data() + at + 4), length);
    at += 4 + length;
  }
  return out;
}

ClassLabels LabelsOf(const std::vector<std::string>& lines) {
  ClassLabels labels;
  for (const std::string& line : lines) labels.Append(line);
  return labels;
}

template <typename T>
ClassResult Run(DataType dtype, const std::vector<T>& values, std::vector<int64_t> shape, bool batched, uint64_t k,
                const ClassLabels* labels = nullptr) {
  const std::vector<uint8_t> bytes = BytesOf(values);
  ClassResult result;
  const RequestFailure failure = Classify("Y", dtype, shape, batched, bytes.data(), bytes.size(), k, labels, &result);
  CHECK_EQ(failure.message, std::string());
  return result;
}

std::string Fixed9(double v) {
  std::string out;
  AppendFixed9(v, &out);
  return out;
}

}  // namespace

TEST(PerBatchEntryTheLargestFirstWithLabelsWhereTheFileHasThem) {
  // Two entries; in the first, 0.7 twice (the lower index first) and index 3 has no label.
  const ClassLabels labels = LabelsOf({"cat", "dog", "bird"});
  const ClassResult r = Run<float>(DataType::kFloat32, {0.1f, 0.7f, 0.2f, 0.7f, 4, 3, 2, 1}, {2, 4}, true, 3, &labels);
  CHECK_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"0.699999988:1:dog", "0.699999988:3", "0.200000003:2:bird",
                                                        "4.000000000:0:cat", "3.000000000:1:dog", "2.000000000:2:bird"}));
}

TEST(WithoutBatchingTheWholeTensorIsOneEntry) {
  const ClassResult r = Run<float>(DataType::kFloat32, {1, 5, 3, 2, 4, 0}, {2, 3}, false, 2);
  CHECK_EQ(r.shape, (std::vector<int64_t>{2}));
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"5.000000000:1", "4.000000000:4"}));
}

TEST(AKLargerThanTheClassCountGivesEveryClass) {
  const ClassResult r = Run<int32_t>(DataType::kInt32, {3, -1, 2, 7, 7, 0}, {2, 3}, true, 1000);
  CHECK_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"3:0", "2:2", "-1:1", "7:0", "7:1", "0:2"}));
}

TEST(TiesKeepTheLowerIndexFirstWhateverTheirNumber) {
  std::vector<double> values(40, 0.25);
  values[17] = 0.5;
  const ClassResult r = Run<double>(DataType::kFloat64, values, {40}, false, 5);
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"0.500000000:17", "0.250000000:0", "0.250000000:1", "0.250000000:2",
                                                        "0.250000000:3"}));
}

TEST(NanRanksBelowEveryNumberAndInfinitiesAreNumbers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const ClassResult r = Run<double>(DataType::kFloat64, {nan, 0.5, -inf, nan, inf}, {1, 5}, true, 5);
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"inf:4", "0.500000000:1", "-inf:2", "nan:0", "nan:3"}));
  // A NaN with its sign bit set (what x86 makes of 0/0) ranks the same and prints as std::fixed
  // prints it, as Triton does.
  const ClassResult negative = Run<float>(DataType::kFloat32, {-std::numeric_limits<float>::quiet_NaN(), 1}, {2}, false, 2);
  CHECK_EQ(Strings(negative.bytes), (std::vector<std::string>{"1.000000000:1", "-nan:0"}));
}

TEST(IntegersPrintPlainAtEveryWidth) {
  CHECK_EQ(Strings(Run<uint8_t>(DataType::kUInt8, {200, 7, 65}, {3}, false, 3).bytes),
           (std::vector<std::string>{"200:0", "65:2", "7:1"}));
  CHECK_EQ(Strings(Run<int8_t>(DataType::kInt8, {-128, 127, 65}, {3}, false, 3).bytes),
           (std::vector<std::string>{"127:1", "65:2", "-128:0"}));
  CHECK_EQ(Strings(Run<uint16_t>(DataType::kUInt16, {65535, 1}, {2}, false, 1).bytes), (std::vector<std::string>{"65535:0"}));
  CHECK_EQ(Strings(Run<int16_t>(DataType::kInt16, {-32768, 1}, {2}, false, 2).bytes), (std::vector<std::string>{"1:1", "-32768:0"}));
  CHECK_EQ(Strings(Run<uint32_t>(DataType::kUInt32, {4294967295u, 1}, {2}, false, 1).bytes), (std::vector<std::string>{"4294967295:0"}));
  // 64-bit values compare and print exactly (no trip through a double).
  CHECK_EQ(Strings(Run<uint64_t>(DataType::kUInt64, {18446744073709551615ull, 18446744073709551614ull}, {2}, false, 2).bytes),
           (std::vector<std::string>{"18446744073709551615:0", "18446744073709551614:1"}));
  CHECK_EQ(Strings(Run<int64_t>(DataType::kInt64, {5, -2, 9, INT64_MIN}, {4}, false, 10).bytes),
           (std::vector<std::string>{"9:2", "5:0", "-2:1", "-9223372036854775808:3"}));
}

TEST(LabelsPastTheFileOrEmptyAreLeftOut) {
  const ClassLabels labels = LabelsOf({"", "b\xc3\xa9"});
  const ClassResult r = Run<int32_t>(DataType::kInt32, {1, 2, 3}, {3}, false, 3, &labels);
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"3:2", "2:1:b\xc3\xa9", "1:0"}));
  CHECK_EQ(labels.size(), size_t(2));
  CHECK_EQ(std::string(labels.At(5)), std::string());
  OutputLabels outputs;
  outputs["Y"] = std::make_shared<ClassLabels>(LabelsOf({"x"}));
  CHECK(FindLabels(&outputs, "Y") != nullptr && FindLabels(&outputs, "Y")->At(0) == "x");
  CHECK(FindLabels(&outputs, "Z") == nullptr);
  CHECK(FindLabels(nullptr, "Y") == nullptr);
}

TEST(ReadsValuesAtAnyAlignment) {
  std::vector<uint8_t> bytes(1 + 3 * sizeof(double));
  const double values[3] = {1.5, -2, 8};
  std::memcpy(bytes.data() + 1, values, sizeof(values));
  ClassResult r;
  CHECK(Classify("Y", DataType::kFloat64, {3}, false, bytes.data() + 1, 3 * sizeof(double), 2, nullptr, &r).ok());
  CHECK_EQ(Strings(r.bytes), (std::vector<std::string>{"8.000000000:2", "1.500000000:0"}));
}

TEST(EmptyBatchesAndEntriesGiveEmptyResults) {
  const ClassResult rows = Run<float>(DataType::kFloat32, {}, {0, 4}, true, 3);
  CHECK_EQ(rows.shape, (std::vector<int64_t>{0, 0}));
  CHECK(rows.bytes.empty());
  const ClassResult classes = Run<float>(DataType::kFloat32, {}, {2, 0}, true, 3);
  CHECK_EQ(classes.shape, (std::vector<int64_t>{2, 0}));
  CHECK(classes.bytes.empty());
}

TEST(RefusesTheTypesTritonHasNoClassResultsFor) {
  const uint8_t bytes[8] = {};
  for (DataType dtype : {DataType::kBool, DataType::kFloat16, DataType::kBFloat16, DataType::kString}) {
    ClassResult r;
    const RequestFailure failure = Classify("probs", dtype, {2}, false, bytes, 4, 1, nullptr, &r);
    CHECK(failure.reason == FailureReason::kInvalidArgument);
    CHECK_EQ(failure.message, std::string("class result not available for output 'probs' due to unsupported type '") +
                                  DataTypeName(dtype) + "'");
  }
}

TEST(PrintsValuesAsStdFixed9) {
  CHECK_EQ(Fixed9(double(0.7f)), "0.699999988");
  CHECK_EQ(Fixed9(0.7), "0.700000000");
  CHECK_EQ(Fixed9(123.4567890123), "123.456789012");
  CHECK_EQ(Fixed9(1e20), "100000000000000000000.000000000");
  CHECK_EQ(Fixed9(std::ldexp(1, -30)), "0.000000001");
  CHECK_EQ(Fixed9(4.5e15 + 0.5), "4500000000000000.500000000");
  // -0 and a negative value that rounds to zero keep their sign, as std::fixed prints them.
  CHECK_EQ(Fixed9(-0.0), "-0.000000000");
  CHECK_EQ(Fixed9(-1e-12), "-0.000000000");
  // An exact tie at the tenth decimal rounds to even.
  CHECK_EQ(Fixed9(0.0009765625), "0.000976562");
  CHECK_EQ(Fixed9(-0.0009765625), "-0.000976562");
  CHECK_EQ(Fixed9(0.0029296875), "0.002929688");
  // Every integer digit, however large.
  CHECK_EQ(Fixed9(1e21), "1000000000000000000000.000000000");
  CHECK_EQ(Fixed9(double(3.4e38f)), "339999995214436424907732413799364296704.000000000");
  CHECK_EQ(Fixed9(-std::numeric_limits<double>::max()).size(), size_t(1 + 309 + 1 + 9));
  CHECK_EQ(Fixed9(std::numeric_limits<double>::infinity()), "inf");
  CHECK_EQ(Fixed9(-std::numeric_limits<double>::infinity()), "-inf");
  CHECK_EQ(Fixed9(std::nan("")), "nan");
  CHECK_EQ(Fixed9(-std::nan("")), "-nan");
}
