#include "pallasbench/check/filters/filter.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../detail/std_across.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

bool same_shape(const output_pair& p) { return p.output->shape() == p.reference->shape(); }

}  // namespace

std::string filter_description::passes_when() const {
  if (direction == pass_direction::reason_only || !threshold) return "no reason to refuse";
  return fmt::format("value {} {:g}", to_string(direction), *threshold);
}

json filter_description::to_json() const {
  return {{"name", name},
          {"checks", checks},
          {"direction", to_string(direction)},
          {"threshold", threshold ? json(*threshold) : json(nullptr)},
          {"threshold_varies_with", threshold_varies_with}};
}

json filter_result::to_json() const {
  const bool compared = direction != pass_direction::reason_only;
  return {{"passed", passed},
          {"value", std::isfinite(value) ? json(value) : json(nullptr)},
          {"threshold", compared ? json(threshold) : json(nullptr)},
          {"direction", to_string(direction)},
          {"reason", reason}};
}

filter_result robustness_filter::evaluate(const filter_inputs& in) const {
  const auto description = describe();
  filter_result result;
  try {
    result = do_evaluate(in);
  } catch (const std::exception& e) {  // missing_evidence among them
    result = filter_result{};
    result.threshold = description.threshold.value_or(0);  // the one it would have compared with
    result.reason = std::string("cannot run: ") + e.what();
  }
  result.direction = description.direction;
  return result;
}

const pair_profile& filter_inputs::profile(const output_pair& pair) const {
  const auto key = std::make_pair(pair.output, pair.reference);
  auto it = m_profiles.find(key);
  if (it == m_profiles.end()) it = m_profiles.emplace(key, profile_pair(*pair.output, *pair.reference)).first;
  return it->second;
}

const seed_summary& filter_inputs::summary() const {
  const auto same_seeds = [&] {
    return std::equal(
        seeds.begin(), seeds.end(), m_summary_of.begin(), m_summary_of.end(),
        [](const output_pair& a, const output_pair& b) { return a.output == b.output && a.reference == b.reference; });
  };
  if (m_summary && same_seeds()) return *m_summary;
  seed_summary sum;
  const std::size_t k = seeds.size();
  sum.across = k >= 2 && std::all_of(seeds.begin(), seeds.end(), same_shape);
  const auto size = k ? seeds.front().output->size() : 0;
  const bool float_seeds =
      sum.across && std::all_of(seeds.begin(), seeds.end(), [&](const output_pair& p) {
        return p.output->type() == dtype::float32 && p.reference->type() == dtype::float32 && p.output->size() == size;
      });
  if (float_seeds) {
    // Seed 0's profile (axes_variation reads it too); the other seeds' moments in the passes across seeds.
    const auto& first = profile(seeds.front());
    sum.outputs.assign(k, value_moments{}), sum.references.assign(k, value_moments{});
    sum.outputs[0] = first.output, sum.references[0] = first.reference;
    std::vector<const float*> outs, refs;
    for (const auto& p : seeds)
      outs.push_back(p.output->as<float>().data()), refs.push_back(p.reference->as<float>().data());
    sum.output_std_across = detail::float_std_across(outs.data(), k, size, sum.outputs.data());
    sum.reference_std_across = detail::float_std_across(refs.data(), k, size, sum.references.data());
  } else {
    for (const auto& p : seeds) {
      const auto& profiled = profile(p);
      sum.outputs.push_back(profiled.output), sum.references.push_back(profiled.reference);
    }
    if (sum.across) {
      std::vector<const npy_array*> outs, refs;
      for (const auto& p : seeds) outs.push_back(p.output), refs.push_back(p.reference);
      sum.reference_std_across = detail::array_std_across(refs);
      sum.output_std_across = detail::array_std_across(outs);
    }
  }
  m_summary_of = seeds;
  return *(m_summary = std::move(sum));
}

}  // namespace pallasbench
