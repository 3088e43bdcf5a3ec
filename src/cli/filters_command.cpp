#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/filter_listing.hpp"
#include "pallasbench/check/filters/registry.hpp"
#include "pallasbench/cli/commands.hpp"

namespace pallasbench {
namespace detail {
namespace {

// The threshold's rule when the task or dtype sets it, after the default the description gives.
std::string passes_when_in_full(const filter_description& filter) {
  if (filter.threshold_varies_with.empty()) return filter.passes_when();
  return fmt::format("{} by default; set by {}", filter.passes_when(), filter.threshold_varies_with);
}

std::string markdown_cell(std::string text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::string filters_text(const std::vector<filter_description>& filters) {
  std::size_t name_width = 6, rule_width = 11;
  for (const auto& f : filters) {
    name_width = std::max(name_width, f.name.size());
    rule_width = std::max(rule_width, passes_when_in_full(f).size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {}\n", "filter", name_width, "passes when", rule_width, "checks");
  for (const auto& f : filters)
    out += fmt::format("{:<{}}  {:<{}}  {}\n", f.name, name_width, passes_when_in_full(f), rule_width, f.checks);
  return out + fmt::format("{} filters\n", filters.size());
}

std::string filters_json(const std::vector<filter_description>& filters) {
  auto out = nlohmann::json::array();
  for (const auto& f : filters) out.push_back(f.to_json());
  return out.dump(2) + "\n";
}

std::string filters_markdown(const std::vector<filter_description>& filters) {
  std::string out = "| filter | what it checks | passes when |\n|---|---|---|\n";
  for (const auto& f : filters)
    out += fmt::format("| `{}` | {} | {} |\n", f.name, markdown_cell(f.checks), markdown_cell(passes_when_in_full(f)));
  return out;
}

}  // namespace detail

int filters_command(const filters_options& options) {
  const auto filters = filter_descriptions();
  switch (options.format) {
    case listing_format::json:
      fmt::print("{}", detail::filters_json(filters));
      break;
    case listing_format::markdown:
      fmt::print("{}", detail::filters_markdown(filters));
      break;
    case listing_format::text:
      fmt::print("{}", detail::filters_text(filters));
      break;
  }
  return exit_code::ok;
}

}  // namespace pallasbench
