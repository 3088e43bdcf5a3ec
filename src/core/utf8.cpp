#include "pallasbench/core/utf8.hpp"

#include <nlohmann/json.hpp>

namespace pallasbench {

std::string valid_utf8(std::string_view bytes) {
  // nlohmann's serializer validates UTF-8 and replaces what is invalid; parsing its output back
  // gives the repaired text (no hand-written decoder).
  const auto quoted = nlohmann::json(std::string(bytes)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

}  // namespace pallasbench
