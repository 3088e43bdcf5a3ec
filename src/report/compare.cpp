#include "pallasbench/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/cells.hpp"
#include "pallasbench/record/record.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

using detail::number_at;

std::string string_at(const json& j, const json::json_pointer& ptr) {
  return j.contains(ptr) && j[ptr].is_string() ? j[ptr].get<std::string>() : std::string();
}

// The suite task's implementation (config.backend); "" for a candidate or a record from before the
// backend axis.
std::string run_backend(const json& record) {
  return string_at(record, "/config/backend"_json_pointer);
}

// The run's dtype, as the record says it (records from before the dtype axis ran at float32).
std::string run_dtype(const json& record) {
  const auto it = record.find("dtype");
  return it != record.end() && it->is_string() ? it->get<std::string>() : "float32";
}

struct keyed {
  std::tuple<std::string, std::string, std::string, std::string, std::string> key;  // task, size, dtype, backend, sha256
  compared_side side;
  bool matched = false;
};

// One side's records, a later record of the same key replacing an earlier one in place.
std::vector<keyed> keyed_records(const std::vector<json>& records) {
  std::vector<keyed> out;
  for (const auto& record : records) {
    keyed k{{record.value("kernel_name", "?"), record.value("size", "?"), run_dtype(record), run_backend(record),
             string_at(record, "/candidate/sha256"_json_pointer)},
            compared_side::from_record(record)};
    const auto same = std::find_if(out.begin(), out.end(), [&](const keyed& e) { return e.key == k.key; });
    if (same != out.end())
      *same = std::move(k);
    else
      out.push_back(std::move(k));
  }
  return out;
}

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

// The verdict and note of a row present on both sides.
void judge(compare_row& row, double threshold) {
  const auto& base = *row.base;
  const auto& next = *row.next;
  std::vector<std::string> notes;
  if (base.status != next.status) notes.push_back(fmt::format("status {} -> {}", base.status, next.status));
  if (base.robust != next.robust)
    notes.push_back(fmt::format("robust {} -> {}", yes_no(base.robust), yes_no(next.robust)));
  const bool timed = base.median_us && next.median_us && *base.median_us > 0;
  if (timed) row.change = (*next.median_us - *base.median_us) / *base.median_us;
  if (base.passed && !next.passed) {
    row.verdict = compare_verdict::broke;
  } else if (!base.passed && next.passed) {
    row.verdict = compare_verdict::fixed;
  } else if (timed) {
    row.verdict = speed_verdict(base, next, threshold);
    // Without both intervals disjointness cannot be shown: a large change stays AMBIGUOUS.
    if (!base.ci95_us) notes.emplace_back("no CI95 in base");
    if (!next.ci95_us) notes.emplace_back("no CI95 in new");
  } else {
    row.verdict = compare_verdict::no_timing;
  }
  for (const auto& n : notes) row.note += (row.note.empty() ? "" : "; ") + n;
}

std::string median_cell(const std::optional<compared_side>& side) {
  // Three decimals under a millisecond: the changes a comparison shows are often nanoseconds.
  return detail::format_us(side ? side->median_us : std::nullopt, 3);
}

// The table has no hash column: an unjoined row names its candidate, else two candidates of one task
// read alike.
std::string candidate_note(const compare_row& row) {
  return row.candidate_sha256.empty() ? "no candidate hash" : "candidate " + row.candidate_sha256.substr(0, 12);
}

json side_json(const std::optional<compared_side>& side) {
  if (!side) return nullptr;
  json j{{"status", side->status},
         {"passed", side->passed},
         {"robustness_passed", side->robust ? json(*side->robust) : json(nullptr)},
         {"median_us", optional_number(side->median_us)},
         {"ci95_us", nullptr}};
  if (side->ci95_us) j["ci95_us"] = {side->ci95_us->first, side->ci95_us->second};
  return j;
}

}  // namespace

compared_side compared_side::from_record(const json& record) {
  compared_side side;
  side.status = record.value("status", "?");
  side.passed = record_passed(record);
  if (const auto ptr = "/result/robustness_passed"_json_pointer; record.contains(ptr) && record[ptr].is_boolean())
    side.robust = record[ptr].get<bool>();
  side.median_us = number_at(record, "/timing/median_us"_json_pointer);
  if (const auto ptr = "/timing/ci95_us"_json_pointer; record.contains(ptr)) {
    const auto& ci = record[ptr];
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
      side.ci95_us = std::pair{ci[0].get<double>(), ci[1].get<double>()};
  }
  return side;
}

compare_verdict speed_verdict(const compared_side& base, const compared_side& next, double threshold) {
  const double change = (*next.median_us - *base.median_us) / *base.median_us;
  if (std::abs(change) <= threshold) return compare_verdict::same;
  // nvbench's compare-robust: a difference counts only when the intervals do not overlap, else
  // the noise could explain it.
  const bool disjoint = base.ci95_us && next.ci95_us &&
                        (base.ci95_us->second < next.ci95_us->first || next.ci95_us->second < base.ci95_us->first);
  if (!disjoint) return compare_verdict::ambiguous;
  return change < 0 ? compare_verdict::faster : compare_verdict::slower;
}

compare_result compare_records(const std::vector<json>& base_records, const std::vector<json>& next_records,
                               const comparison_options& options) {
  auto base = keyed_records(base_records);
  auto next = keyed_records(next_records);
  std::vector<keyed*> partner(base.size(), nullptr);
  for (std::size_t i = 0; i < base.size(); ++i)
    for (auto& n : next)
      if (!n.matched && n.key == base[i].key) {
        n.matched = true;
        partner[i] = &n;
        break;
      }
  compare_result result;
  const auto row_of = [](const keyed& k) {
    compare_row row;
    std::tie(row.task, row.size, row.dtype, row.backend, row.candidate_sha256) = k.key;
    return row;
  };
  for (std::size_t i = 0; i < base.size(); ++i) {
    auto row = row_of(base[i]);
    row.base = base[i].side;
    if (partner[i]) {
      row.next = partner[i]->side;
      judge(row, options.threshold);
    } else {
      row.verdict = compare_verdict::removed;
      row.note = candidate_note(row);
    }
    result.rows.push_back(std::move(row));
  }
  for (const auto& n : next) {
    if (n.matched) continue;
    auto row = row_of(n);
    row.next = n.side;
    row.verdict = compare_verdict::added;
    row.note = candidate_note(row);
    result.rows.push_back(std::move(row));
  }
  return result;
}

std::map<compare_verdict, int> compare_result::counts() const {
  std::map<compare_verdict, int> counts;
  for (const auto& r : rows) ++counts[r.verdict];
  return counts;
}

bool compare_result::regressed() const {
  for (const auto& r : rows)
    if (r.verdict == compare_verdict::slower || r.verdict == compare_verdict::broke) return true;
  return false;
}

json compare_row::to_json() const {
  return {{"task", task},
          {"size", size},
          {"backend", backend},
          {"dtype", dtype},
          {"candidate_sha256", candidate_sha256},
          {"base", side_json(base)},
          {"new", side_json(next)},
          {"change", optional_number(change)},
          {"verdict", std::string(to_string(verdict))},
          {"note", note}};
}

json compare_result::to_json() const {
  json j{{"rows", json::array()}, {"counts", json::object()}};
  for (const auto& r : rows) j["rows"].push_back(r.to_json());
  // Every verdict, zeros included, so a consumer can read any count without a default.
  for (const auto& [verdict, name] : enum_names<compare_verdict>::entries) j["counts"][std::string(name)] = 0;
  for (const auto& [verdict, n] : counts()) j["counts"][std::string(to_string(verdict))] = n;
  return j;
}

void print_compare_markdown(std::ostream& out, const compare_result& result) {
  fmt::print(out, "| task | size | base median | new median | change | verdict | note |\n");
  fmt::print(out, "|---|---|---:|---:|---:|---|---|\n");
  for (const auto& r : result.rows)
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} |\n", r.task,
               r.backend.empty() || r.backend == "triton" ? r.size : r.size + "/" + r.backend, median_cell(r.base),
               median_cell(r.next),
               r.change ? fmt::format("{:+.2f}%", 100 * *r.change) : "-", to_string(r.verdict), r.note);
  fmt::print(out, "\n");
  for (const auto& [verdict, n] : result.counts()) fmt::print(out, "{}: {}\n", to_string(verdict), n);
}

}  // namespace pallasbench
