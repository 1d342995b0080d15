#include "cpu/isa.h"

#include <cstdlib>
#include <cstring>

namespace gebe::cpu {

namespace {

struct IsaChoice {
  Isa isa = Isa::kPortable;
  std::string error;
};

Isa Best() {
  if (CpuSupports(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuSupports(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kPortable;
}

IsaChoice Choose() {
  IsaChoice choice;
  choice.isa = Best();
  const char* env = std::getenv("GEBE_CPU_ISA");
  if (env == nullptr || env[0] == '\0') return choice;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (std::strcmp(env, IsaName(isa)) != 0) continue;
    if (CpuSupports(isa)) {
      choice.isa = isa;
    } else {
      choice.error = std::string("GEBE_CPU_ISA=") + env + " asks for kernels this CPU cannot run (it runs up to " +
                     IsaName(choice.isa) + "); unset GEBE_CPU_ISA or set it to " + IsaName(choice.isa) +
                     (choice.isa == Isa::kPortable ? "" : " or portable");
    }
    return choice;
  }
  choice.error = std::string("GEBE_CPU_ISA=") + env + " is not an instruction set the cpu engine knows; use portable, " +
                 "avx2 or avx512 (this CPU runs up to " + IsaName(choice.isa) + "), or unset it";
  return choice;
}

const IsaChoice& Chosen() {
  static const IsaChoice choice = Choose();
  return choice;
}

}  // namespace

bool CpuSupports(Isa isa) {
  if (isa == Isa::kPortable) return true;
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  // libgcc's checks include the OS saving the YMM/ZMM state (XGETBV), not only the cpuid bits.
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == Isa::kAvx2) return avx2;
  return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

Isa ActiveIsa() { return Chosen().isa; }

const std::string& IsaError() { return Chosen().error; }

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512: return "avx512";
    case Isa::kAvx2: return "avx2";
    default: return "portable";
  }
}

}  // namespace gebe::cpu
