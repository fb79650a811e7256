// SPDX-License-Identifier: Apache-2.0
// Internal to io/ (and compare's JSON rendering): how results JSON is built.
//
// Numbers JSON cannot hold: NaN is written as null, +inf and -inf as the strings "inf" and
// "-inf"; the loader reads them back (and also accepts the string "nan"), so a write/load
// round trip is exact. Files are written with keys in a fixed, readable order (schema first,
// id first per case); to_json() returns the same content as a plain (key-sorted) json.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/result.h"

namespace fa2b::json_detail {

template <class J>
J number_json(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::ordered_json ordered_json_of(const CaseResult& r);
nlohmann::ordered_json ordered_json_of(const Verdict& v);
nlohmann::ordered_json ordered_json_of(const ResultSet& rs);

}  // namespace fa2b::json_detail
