// The instruction set the cpu engine's kernels use, chosen once per process at run time: the best
// this CPU runs (AVX-512 F/BW/DQ/VL, then AVX2+FMA, then portable C++), or the one GEBE_CPU_ISA
// names (portable | avx2 | avx512) so tests can run every path the machine has. Kernels for an ISA
// are compiled with per-function target attributes, never -march, so the addon runs on any x86-64.
#pragma once

#include <string>

namespace gebe::cpu {

enum class Isa { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// The ISA in use. With a GEBE_CPU_ISA this CPU cannot run (or an unknown name), the best the CPU
// has; sessions refuse to load then (IsaError), so the fallback is never silently what a test measured.
Isa ActiveIsa();
const char* IsaName(Isa isa);
// Whether this CPU (and OS) runs the ISA's kernels.
bool CpuSupports(Isa isa);
// Empty unless GEBE_CPU_ISA asks for something this machine cannot do; then a sentence naming the
// value, what this CPU has and how to fix it.
const std::string& IsaError();

}  // namespace gebe::cpu
