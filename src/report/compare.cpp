#include "pallasbench/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/cells.hpp"
#include "pallasbench/record/record.hpp"
#include "pallasbench/report/u_test.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

using detail::number_at;

std::string string_at(const json& j, const json::json_pointer& ptr) {
  return j.contains(ptr) && j[ptr].is_string() ? j[ptr].get<std::string>() : std::string();
}

// The suite task's implementation (config.backend); "" for a candidate or a record from before the
// backend axis.
std::string run_backend(const json& record) { return string_at(record, "/config/backend"_json_pointer); }

// The run's dtype, as the record says it (records from before the dtype axis ran at float32).
std::string run_dtype(const json& record) {
  const auto it = record.find("dtype");
  return it != record.end() && it->is_string() ? it->get<std::string>() : "float32";
}

struct keyed {
  std::tuple<std::string, std::string, std::string, std::string, std::string>
      key;  // task, size, dtype, backend, sha256
  compared_side side;
  std::string candidate;  // detail::candidate_name of the key's first record
  bool matched = false;
};

// One run's records, a later record of the same key replacing an earlier one in place.
std::vector<keyed> keyed_records(const std::vector<json>& records) {
  std::vector<keyed> out;
  for (const auto& record : records) {
    keyed k{{record.value("kernel_name", "?"), record.value("size", "?"), run_dtype(record), run_backend(record),
             string_at(record, "/candidate/sha256"_json_pointer)},
            compared_side::from_record(record),
            detail::candidate_name(record)};
    const auto same = std::find_if(out.begin(), out.end(), [&](const keyed& e) { return e.key == k.key; });
    if (same != out.end())
      *same = std::move(k);
    else
      out.push_back(std::move(k));
  }
  return out;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// `more` (a later run's record of the key) joins `side` as a repetition: its median a sample, its
// failure the side's.
void add_run(compared_side& side, const compared_side& more) {
  ++side.runs;
  side.samples_us.insert(side.samples_us.end(), more.samples_us.begin(), more.samples_us.end());
  side.wall_clock = side.wall_clock || more.wall_clock;
  if (side.passed && !more.passed) {
    side.status = more.status;
    side.robust = more.robust;
  }
  side.passed = side.passed && more.passed;
  side.ci95_us.reset();  // one run's interval says nothing of the others'
  side.speedups.insert(side.speedups.end(), more.speedups.begin(), more.speedups.end());
  side.speedup =
      static_cast<int>(side.speedups.size()) == side.runs ? std::optional(median_of(side.speedups)) : std::nullopt;
  // A run without a median leaves the side without one: its sample is missing.
  side.median_us = side.median_us && more.median_us && static_cast<int>(side.samples_us.size()) == side.runs
                       ? std::optional(median_of(side.samples_us))
                       : std::nullopt;
}

// Runs of one side merged by key, in the order keys first appear.
std::vector<keyed> merged_runs(const std::vector<std::vector<json>>& runs) {
  std::vector<keyed> out;
  for (const auto& run : runs)
    for (auto& k : keyed_records(run)) {
      const auto same = std::find_if(out.begin(), out.end(), [&](const keyed& e) { return e.key == k.key; });
      if (same == out.end())
        out.push_back(std::move(k));
      else
        add_run(same->side, k.side);
    }
  return out;
}

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

// The verdict and note of a row present on both sides.
void judge(compare_row& row, const comparison_options& options) {
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
    row.verdict = speed_verdict(base, next, options, &row.p_value);
    if (base.wall_clock || next.wall_clock) {
      // The host's clock on the CPU measures Python dispatch and the interpreter: noise, not the kernel.
      row.verdict = compare_verdict::wall_clock;
      notes.emplace_back("wall clock, not compared");
    } else if (!row.p_value) {
      // Without both intervals disjointness cannot be shown: a large change stays AMBIGUOUS.
      if (!base.ci95_us && base.runs == 1) notes.emplace_back("no CI95 in base");
      if (!next.ci95_us && next.runs == 1) notes.emplace_back("no CI95 in new");
    }
    if (base.runs != next.runs) notes.push_back(fmt::format("runs {} vs {}", base.runs, next.runs));
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

// The size, and the dtype and backend where they are not the default.
std::string size_cell(const compare_row& r) {
  auto cell = r.size;
  if (!r.dtype.empty() && r.dtype != "float32") cell += "/" + r.dtype;
  if (!r.backend.empty() && r.backend != "triton") cell += "/" + r.backend;
  return cell;
}

json side_json(const std::optional<compared_side>& side) {
  if (!side) return nullptr;
  json j{{"status", side->status},
         {"passed", side->passed},
         {"robustness_passed", side->robust ? json(*side->robust) : json(nullptr)},
         {"median_us", optional_number(side->median_us)},
         {"samples_us", side->samples_us},
         {"runs", side->runs},
         {"wall_clock", side->wall_clock},
         {"speedup", optional_number(side->speedup)},
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
  if (side.median_us) side.samples_us.push_back(*side.median_us);
  side.wall_clock = string_at(record, "/timing/timer"_json_pointer) == "wall";
  side.speedup = number_at(record, "/timing/speedup"_json_pointer);
  if (side.speedup) side.speedups.push_back(*side.speedup);
  if (const auto ptr = "/timing/ci95_us"_json_pointer; record.contains(ptr)) {
    const auto& ci = record[ptr];
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
      side.ci95_us = std::pair{ci[0].get<double>(), ci[1].get<double>()};
  }
  return side;
}

compare_verdict speed_verdict(const compared_side& base, const compared_side& next, const comparison_options& options,
                              std::optional<double>* p_value) {
  const double change = (*next.median_us - *base.median_us) / *base.median_us;
  // compare.py's UTEST_MIN_REPETITIONS: two runs a side at least (nine for a reliable answer).
  if (base.samples_us.size() >= 2 && next.samples_us.size() >= 2) {
    const double p = mann_whitney_u(base.samples_us, next.samples_us).p_value;
    if (p_value) *p_value = p;
    if (std::abs(change) <= options.threshold) return compare_verdict::same;
    if (p >= options.alpha) return compare_verdict::ambiguous;
    return change < 0 ? compare_verdict::faster : compare_verdict::slower;
  }
  if (std::abs(change) <= options.threshold) return compare_verdict::same;
  // nvbench's compare-robust: a difference counts only when the intervals do not overlap, else
  // the noise could explain it.
  const bool disjoint = base.ci95_us && next.ci95_us &&
                        (base.ci95_us->second < next.ci95_us->first || next.ci95_us->second < base.ci95_us->first);
  if (!disjoint) return compare_verdict::ambiguous;
  return change < 0 ? compare_verdict::faster : compare_verdict::slower;
}

compare_result compare_records(const std::vector<json>& base_records, const std::vector<json>& next_records,
                               const comparison_options& options) {
  return compare_runs({base_records}, {next_records}, options);
}

compare_result compare_runs(const std::vector<std::vector<json>>& base_runs,
                            const std::vector<std::vector<json>>& next_runs, const comparison_options& options) {
  auto base = merged_runs(base_runs);
  auto next = merged_runs(next_runs);
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
    row.candidate = k.candidate;
    return row;
  };
  for (std::size_t i = 0; i < base.size(); ++i) {
    auto row = row_of(base[i]);
    row.base = base[i].side;
    if (partner[i]) {
      row.next = partner[i]->side;
      judge(row, options);
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

bool compare_result::within_run_only() const {
  for (const auto& r : rows)
    if (r.change && !r.p_value && r.verdict != compare_verdict::wall_clock) return true;
  return false;
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
          {"candidate", candidate},
          {"base", side_json(base)},
          {"new", side_json(next)},
          {"change", optional_number(change)},
          {"p_value", optional_number(p_value)},
          {"verdict", std::string(to_string(verdict))},
          {"note", note}};
}

json compare_result::to_json() const {
  json j{{"rows", json::array()}, {"counts", json::object()}, {"within_run_only", within_run_only()}};
  for (const auto& r : rows) j["rows"].push_back(r.to_json());
  // Every verdict, zeros included, so a consumer can read any count without a default.
  for (const auto& [verdict, name] : enum_names<compare_verdict>::entries) j["counts"][std::string(name)] = 0;
  for (const auto& [verdict, n] : counts()) j["counts"][std::string(to_string(verdict))] = n;
  return j;
}

void print_compare_markdown(std::ostream& out, const compare_result& result) {
  fmt::print(out, "| task | size | base median | new median | change | p | verdict | note |\n");
  fmt::print(out, "|---|---|---:|---:|---:|---:|---|---|\n");
  for (const auto& r : result.rows)
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", r.task, size_cell(r), median_cell(r.base),
               median_cell(r.next), r.change ? fmt::format("{:+.2f}%", 100 * *r.change) : "-",
               r.p_value ? fmt::format("{:.4f}", *r.p_value) : "-", to_string(r.verdict), r.note);
  fmt::print(out, "\n");
  if (result.within_run_only())
    fmt::print(out,
               "one run a side: the verdicts rest on each run's own CI95; give several runs a side (--repetitions) "
               "for a U test across runs\n");
  for (const auto& [verdict, n] : result.counts()) fmt::print(out, "{}: {}\n", to_string(verdict), n);
}

}  // namespace pallasbench
