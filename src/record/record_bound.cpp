#include "pallasbench/record/record_bound.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using nlohmann::json;

std::size_t serialized_size(const json& record) {
  return record.dump(-1, ' ', false, json::error_handler_t::replace).size();
}

// What may go, in order. Card and KernelBook columns (jaxpr, stablehlo, sources) stay present as
// "" so every reader still finds them; the rest is left out.
struct shrinkable {
  const char* pointer;
  bool keep_empty;
};
constexpr std::array k_order = {
    shrinkable{"/artifacts/pass_trail/text", false},
    shrinkable{"/artifacts/sass/text", false},
    shrinkable{"/artifacts/ptx/text", false},
    shrinkable{"/artifacts/ptxas/text", false},
    shrinkable{"/artifacts/triton_ir", false},
    shrinkable{"/artifacts/jaxpr_dag", false},
    shrinkable{"/trust/analysed_stablehlo", false},
    shrinkable{"/stablehlo", true},
    shrinkable{"/jaxpr", true},
    shrinkable{"/python_code", true},
    shrinkable{"/triton_code", true},
    shrinkable{"/source_fixed", true},
    shrinkable{"/source_original", true},
    shrinkable{"/stderr_tail", false},
};

std::string dotted(std::string_view pointer) {
  std::string out(pointer.substr(1));
  for (auto& c : out)
    if (c == '/') c = '.';
  return out;
}

}  // namespace

std::size_t bound_record(json& record, std::size_t max_bytes) {
  std::size_t size = serialized_size(record);
  std::size_t omitted = 0;
  for (const auto& field : k_order) {
    if (size <= max_bytes) break;
    const json::json_pointer pointer(field.pointer);
    if (!record.contains(pointer)) continue;
    const auto bytes = serialized_size(record[pointer]);
    if (field.keep_empty)
      record[pointer] = "";
    else
      record[pointer.parent_pointer()].erase(pointer.back());
    if (!record.contains("omitted")) record["omitted"] = json::array();
    record["omitted"].push_back(fmt::format("{} ({} bytes)", dotted(field.pointer), bytes));
    ++omitted;
    size = serialized_size(record);
  }
  return omitted;
}

}  // namespace pallasbench
