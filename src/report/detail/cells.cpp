#include "cells.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace pallasbench::detail {

std::optional<double> number_at(const nlohmann::json& j, const nlohmann::json::json_pointer& ptr) {
  if (!j.contains(ptr) || !j[ptr].is_number()) return std::nullopt;
  return j[ptr].get<double>();
}

std::string candidate_name(const nlohmann::json& record) {
  const auto ptr = "/candidate/kind"_json_pointer;
  if (!record.contains(ptr) || record[ptr] != "user") return {};
  if (const auto id = record.find("request_id"); id != record.end() && id->is_string() && !id->empty())
    return id->get<std::string>();
  const auto path = record["candidate"].find("path");
  return path != record["candidate"].end() && path->is_string()
             ? std::filesystem::path(path->get<std::string>()).filename().string()
             : std::string();
}

std::string format_us(const std::optional<double>& us, int us_digits) {
  if (!us) return "-";
  if (*us >= 1e6) return fmt::format("{:.2f} s", *us / 1e6);
  if (*us >= 1e3) return fmt::format("{:.2f} ms", *us / 1e3);
  return fmt::format("{:.{}f} us", *us, us_digits);
}

}  // namespace pallasbench::detail
