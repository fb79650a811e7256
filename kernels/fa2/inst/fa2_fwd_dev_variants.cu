// Alternative bf16 tile shapes, compiled so that one device session can compare them against
// the shipped traits (timing harness: tests/gpu/bench_fa2_kernel.cpp). Not used by fa2_fwd().
#include "fa2/fa2_fwd_launch.cuh"

namespace fa2b {

cudaError_t fa2_fwd_dev_variant(const AttnParams& p, int variant, cudaStream_t stream) {
  using T = __nv_bfloat16;
  const auto run = [&](auto traits) {
    using Traits = decltype(traits);
    return FA2_BOOL_SWITCH(p.causal, kCausal,
                           [&] { return launch_fa2_fwd<Traits, T, kCausal>(p, stream); });
  };
  if (variant == 0) {
    if (p.D == 64) return run_fa2_fwd<T, 64>(p, stream);
    if (p.D == 128) return run_fa2_fwd<T, 128>(p, stream);
    if (p.D == 256) return run_fa2_fwd<T, 256>(p, stream);
  }
  if (p.D == 128) {
    //                                              D  warps mtiles Bc  Q in regs
    if (variant == 1) return run(Fa2TraitsBase<128, 8, 1, 64, true>{});
    if (variant == 2) return run(Fa2TraitsBase<128, 4, 1, 64, true>{});
    if (variant == 3) return run(Fa2TraitsBase<128, 8, 1, 128, false>{});
  }
  if (p.D == 64) {
    if (variant == 1) return run(Fa2TraitsBase<64, 8, 1, 128, true>{});
    if (variant == 2) return run(Fa2TraitsBase<64, 4, 2, 32, true>{});
  }
  if (p.D == 256) {
    if (variant == 1) return run(Fa2TraitsBase<256, 8, 1, 64, false>{});
    if (variant == 2) return run(Fa2TraitsBase<256, 8, 1, 32, false>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace fa2b
