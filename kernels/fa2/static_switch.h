// Runtime -> compile-time dispatch in the style of flash-attention's static_switch.h: each macro
// turns a runtime value into a constexpr visible to the body, so one call site instantiates the
// right template.
#pragma once

#define FA2_BOOL_SWITCH(COND, CONST_NAME, ...) \
  [&] {                                        \
    if (COND) {                                \
      constexpr bool CONST_NAME = true;        \
      return __VA_ARGS__();                    \
    } else {                                   \
      constexpr bool CONST_NAME = false;       \
      return __VA_ARGS__();                    \
    }                                          \
  }()

// Unsupported dtypes are rejected by fa2_fwd_supported() before this runs.
#define FA2_FP16_SWITCH(IS_BF16, ELEM_TYPE, ...) \
  [&] {                                          \
    if (IS_BF16) {                               \
      using ELEM_TYPE = __nv_bfloat16;           \
      return __VA_ARGS__();                      \
    } else {                                     \
      using ELEM_TYPE = __half;                  \
      return __VA_ARGS__();                      \
    }                                            \
  }()

#define FA2_HEADDIM_SWITCH(D, CONST_NAME, ...) \
  [&] {                                        \
    switch (D) {                               \
      case 32: {                               \
        constexpr int CONST_NAME = 32;         \
        return __VA_ARGS__();                  \
      }                                        \
      case 64: {                               \
        constexpr int CONST_NAME = 64;         \
        return __VA_ARGS__();                  \
      }                                        \
      case 96: {                               \
        constexpr int CONST_NAME = 96;         \
        return __VA_ARGS__();                  \
      }                                        \
      case 128: {                              \
        constexpr int CONST_NAME = 128;        \
        return __VA_ARGS__();                  \
      }                                        \
      case 160: {                              \
        constexpr int CONST_NAME = 160;        \
        return __VA_ARGS__();                  \
      }                                        \
      case 192: {                              \
        constexpr int CONST_NAME = 192;        \
        return __VA_ARGS__();                  \
      }                                        \
      case 224: {                              \
        constexpr int CONST_NAME = 224;        \
        return __VA_ARGS__();                  \
      }                                        \
      default: {                               \
        constexpr int CONST_NAME = 256;        \
        return __VA_ARGS__();                  \
      }                                        \
    }                                          \
  }()
