#include "runner/case_filter.h"

namespace fa2b {

bool filter_keeps(const std::regex& filter, const Case& c) {
  return std::regex_search(c.id(), filter) ||
         std::regex_search(c.role + "/" + c.shape_key(), filter);
}

}  // namespace fa2b
