// SPDX-License-Identifier: Apache-2.0
// Runtime -> compile-time dispatch in the style of flash-attention's static_switch.h: each macro
// turns a runtime value into a constexpr visible to the body, so one call site instantiates the
// right template. Every kernel family's host dispatch uses them (fa2, fa3).
#pragma once

#define FA2B_BOOL_SWITCH(COND, CONST_NAME, ...) \
  [&] {                                         \
    if (COND) {                                 \
      constexpr bool CONST_NAME = true;         \
      return __VA_ARGS__();                     \
    } else {                                    \
      constexpr bool CONST_NAME = false;        \
      return __VA_ARGS__();                     \
    }                                           \
  }()

// Head dims dispatch through dispatch_head_dim (common/head_dims.h), from a family's list.

// Unsupported dtypes are rejected by the family's *_supported() before this runs.
#define FA2B_FP16_SWITCH(IS_BF16, ELEM_TYPE, ...) \
  [&] {                                           \
    if (IS_BF16) {                                \
      using ELEM_TYPE = __nv_bfloat16;            \
      return __VA_ARGS__();                       \
    } else {                                      \
      using ELEM_TYPE = __half;                   \
      return __VA_ARGS__();                       \
    }                                             \
  }()
