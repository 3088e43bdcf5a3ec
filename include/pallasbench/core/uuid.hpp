// Record identifiers.
#pragma once

#include <string>

namespace pallasbench {

// A random RFC 4122 version-4 UUID.
[[nodiscard]] std::string make_uuid();

}  // namespace pallasbench
