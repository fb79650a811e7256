// SPDX-License-Identifier: Apache-2.0
#include "core/result.h"

namespace fa2b {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::unsupported:
      return "unsupported";
    case Status::oom:
      return "oom";
    case Status::error:
      return "error";
    case Status::timeout:
      return "timeout";
  }
  return "?";
}

std::optional<Status> parse_status(std::string_view s) {
  for (Status st : {Status::ok, Status::unsupported, Status::oom, Status::error, Status::timeout})
    if (to_string(st) == s) return st;
  return std::nullopt;
}

std::string_view to_string(Grad g) {
  switch (g) {
    case Grad::dq:
      return "dq";
    case Grad::dk:
      return "dk";
    case Grad::dv:
      return "dv";
  }
  return "?";
}

std::string_view to_string(VerdictKind v) {
  switch (v) {
    case VerdictKind::pass:
      return "pass";
    case VerdictKind::fail:
      return "fail";
    case VerdictKind::error:
      return "error";
    case VerdictKind::deferred:
      return "deferred";
    case VerdictKind::skipped:
      return "skipped";
  }
  return "?";
}

}  // namespace fa2b
