// The AscendCL C API subset gebe uses, declared here so gebe builds without CANN headers or
// libraries. Types and prototypes follow CANN's acl/acl_base.h, acl/acl_rt.h and acl/acl_mdl.h
// (stable C ABI). Nothing links against these: AclLibrary resolves them with dlsym at run time.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int aclError;
typedef int aclDataType;  // enum aclDataType: an int in the C ABI
typedef int aclrtMemMallocPolicy;
typedef int aclrtMemcpyKind;
typedef void* aclrtContext;
typedef void* aclrtStream;
struct aclmdlDesc;
struct aclmdlDataset;
struct aclDataBuffer;

#define GEBE_ACL_MAX_DIM_CNT 128
#define GEBE_ACL_MAX_BATCH_NUM 128
struct aclmdlIODims {
  char name[128];
  size_t dimCount;
  int64_t dims[GEBE_ACL_MAX_DIM_CNT];
};
struct aclmdlBatch {
  size_t batchCount;
  uint64_t batch[GEBE_ACL_MAX_BATCH_NUM];
};

}  // extern "C"

namespace gebe::acl {

constexpr aclError kSuccess = 0;
constexpr aclError kRepeatInitialize = 100002;  // aclInit called twice: harmless
constexpr aclrtMemcpyKind kHostToDevice = 1;
constexpr aclrtMemcpyKind kDeviceToHost = 2;
constexpr aclrtMemMallocPolicy kMallocHugeFirst = 0;
// The extra last input of a model converted with --dynamic_batch_size (ACL_DYNAMIC_TENSOR_NAME).
constexpr const char* kDynamicBatchInput = "ascend_mbatch_shape_data";

// The functions, each as a pointer filled from the loaded library. X(name, return, params).
#define GEBE_ACL_FUNCTIONS(X)                                                                          \
  X(aclInit, aclError, (const char*))                                                                  \
  X(aclGetRecentErrMsg, const char*, ())                                                               \
  X(aclrtSetDevice, aclError, (int32_t))                                                               \
  X(aclrtResetDevice, aclError, (int32_t))                                                             \
  X(aclrtGetDeviceCount, aclError, (uint32_t*))                                                        \
  X(aclrtCreateContext, aclError, (aclrtContext*, int32_t))                                            \
  X(aclrtDestroyContext, aclError, (aclrtContext))                                                     \
  X(aclrtSetCurrentContext, aclError, (aclrtContext))                                                  \
  X(aclrtCreateStream, aclError, (aclrtStream*))                                                       \
  X(aclrtDestroyStream, aclError, (aclrtStream))                                                       \
  X(aclrtSynchronizeStream, aclError, (aclrtStream))                                                   \
  X(aclrtMalloc, aclError, (void**, size_t, aclrtMemMallocPolicy))                                     \
  X(aclrtFree, aclError, (void*))                                                                      \
  X(aclrtMemcpy, aclError, (void*, size_t, const void*, size_t, aclrtMemcpyKind))                      \
  X(aclmdlLoadFromFile, aclError, (const char*, uint32_t*))                                            \
  X(aclmdlUnload, aclError, (uint32_t))                                                                \
  X(aclmdlCreateDesc, aclmdlDesc*, ())                                                                 \
  X(aclmdlDestroyDesc, aclError, (aclmdlDesc*))                                                        \
  X(aclmdlGetDesc, aclError, (aclmdlDesc*, uint32_t))                                                  \
  X(aclmdlGetNumInputs, size_t, (aclmdlDesc*))                                                         \
  X(aclmdlGetNumOutputs, size_t, (aclmdlDesc*))                                                        \
  X(aclmdlGetInputSizeByIndex, size_t, (aclmdlDesc*, size_t))                                          \
  X(aclmdlGetOutputSizeByIndex, size_t, (aclmdlDesc*, size_t))                                         \
  X(aclmdlGetInputDims, aclError, (const aclmdlDesc*, size_t, aclmdlIODims*))                          \
  X(aclmdlGetOutputDims, aclError, (const aclmdlDesc*, size_t, aclmdlIODims*))                         \
  X(aclmdlGetCurOutputDims, aclError, (const aclmdlDesc*, size_t, aclmdlIODims*))                      \
  X(aclmdlGetInputNameByIndex, const char*, (const aclmdlDesc*, size_t))                               \
  X(aclmdlGetOutputNameByIndex, const char*, (const aclmdlDesc*, size_t))                              \
  X(aclmdlGetInputDataType, aclDataType, (const aclmdlDesc*, size_t))                                  \
  X(aclmdlGetOutputDataType, aclDataType, (const aclmdlDesc*, size_t))                                 \
  X(aclmdlGetInputIndexByName, aclError, (const aclmdlDesc*, const char*, size_t*))                    \
  X(aclmdlGetDynamicBatch, aclError, (const aclmdlDesc*, aclmdlBatch*))                                \
  X(aclmdlSetDynamicBatchSize, aclError, (uint32_t, aclmdlDataset*, size_t, uint64_t))                 \
  X(aclmdlCreateDataset, aclmdlDataset*, ())                                                           \
  X(aclmdlDestroyDataset, aclError, (const aclmdlDataset*))                                            \
  X(aclmdlAddDatasetBuffer, aclError, (aclmdlDataset*, aclDataBuffer*))                                \
  X(aclCreateDataBuffer, aclDataBuffer*, (void*, size_t))                                              \
  X(aclDestroyDataBuffer, aclError, (const aclDataBuffer*))                                            \
  X(aclmdlExecuteAsync, aclError, (uint32_t, const aclmdlDataset*, aclmdlDataset*, aclrtStream))

struct Api {
#define GEBE_ACL_MEMBER(name, ret, params) ret(*name) params = nullptr;
  GEBE_ACL_FUNCTIONS(GEBE_ACL_MEMBER)
#undef GEBE_ACL_MEMBER
};

}  // namespace gebe::acl
