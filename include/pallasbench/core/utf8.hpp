// Bytes from workers and candidates as text a record can hold.
#pragma once

#include <string>
#include <string_view>

namespace pallasbench {

// `bytes` as valid UTF-8: every byte that is not part of a valid sequence becomes U+FFFD. A
// candidate's stderr, messages and source may hold any bytes; the record must stay valid JSON.
[[nodiscard]] std::string valid_utf8(std::string_view bytes);

}  // namespace pallasbench
