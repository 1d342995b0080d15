// Shared memory for out-of-process backends (the Python backend's stub): maps a file that another
// process maps too (one in /dev/shm) and hands the mapping to JS as an external ArrayBuffer, so
// tensors cross the process boundary by memcpy into the mapping, never as serialised text. The
// mapping is unmapped when the ArrayBuffer is garbage-collected; growing the file means mapping
// it again (older mappings stay valid while referenced).
#include <napi.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "../module_registry.h"

namespace {

// map(fd, size): a MAP_SHARED read/write mapping of the first `size` bytes of the open file `fd`.
// Refuses a size beyond the file's length (touching pages past the end raises SIGBUS).
Napi::Value Map(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
    Napi::TypeError::New(env, "shm.map(fd, size) needs two numbers").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const int fd = info[0].As<Napi::Number>().Int32Value();
  const double size_d = info[1].As<Napi::Number>().DoubleValue();
  if (!(size_d > 0) || size_d > double(1ULL << 40)) {
    Napi::RangeError::New(env, "shm.map: size must be positive and below 1 TiB").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const size_t size = size_t(size_d);
  struct stat st{};
  if (fstat(fd, &st) != 0) {
    Napi::Error::New(env, std::string("shm.map: fstat failed: ") + std::strerror(errno)).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (st.st_size < 0 || size_t(st.st_size) < size) {
    Napi::RangeError::New(env, "shm.map: the file is shorter than the mapping asked for").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    Napi::Error::New(env, std::string("shm.map: mmap failed: ") + std::strerror(errno)).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::ArrayBuffer::New(
      env, base, size, [](Napi::Env, void* data, size_t* length) {
        munmap(data, *length);
        delete length;
      },
      new size_t(size));
}

// discard(fd, offset, length): gives the pages of [offset, offset + length) back to the system
// (the file keeps its size; the range reads as zeros). Returns false where the file system cannot.
Napi::Value Discard(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber()) {
    Napi::TypeError::New(env, "shm.discard(fd, offset, length) needs three numbers").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const int fd = info[0].As<Napi::Number>().Int32Value();
  const double offset = info[1].As<Napi::Number>().DoubleValue();
  const double length = info[2].As<Napi::Number>().DoubleValue();
  if (!(offset >= 0) || !(length > 0)) return Napi::Boolean::New(env, false);
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
  const bool ok = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(length)) == 0;
#else
  const bool ok = false;
#endif
  return Napi::Boolean::New(env, ok);
}

void Init(Napi::Env env, Napi::Object exports) {
  Napi::Object shm = Napi::Object::New(env);
  shm.Set("map", Napi::Function::New(env, Map));
  shm.Set("discard", Napi::Function::New(env, Discard));
  exports.Set("shm", shm);
}

}  // namespace

GEBE_REGISTER_MODULE(shm, Init);
