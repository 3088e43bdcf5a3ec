// The evaluator's checks: each seed and stress case against the reference, then the robustness
// filters on what the seeds kept.
#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/check/correctness.hpp"
#include "pallasbench/check/platform.hpp"
#include "pallasbench/check/filters/registry.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"

namespace pallasbench {

using detail::failed_check;
using detail::wrong_output;

protocol::reference_request evaluator::reference_request(const task_info& task, std::uint64_t seed,
                                                         const std::filesystem::path& dir) const {
  protocol::reference_request request;
  request.task = task.name;
  request.size = m_config.size;
  request.dtype = m_config.dtype;
  request.seed = seed;
  request.dir = dir.string();
  return request;
}

protocol::reference_reply evaluator::make_reference(protocol::reference_request request) {
  m_phase = failure_phase::reference;
  const auto making = m_clock.enter(work_phase::reference);
  // The inputs first, holding nothing: drawing and writing them is host work, and a shared lease
  // held meanwhile would keep a lane that waits to time waiting too (on the H200, seconds per
  // reference while every other lane queued behind it). Then the output, on the device.
  request.inputs_only = true;
  (void)protocol::call(m_pool.reference(), request, timeout());
  request.inputs_only = false;
  const auto lease = gpu_work();
  return protocol::reference_reply::from_json(protocol::call(m_pool.reference(), request, timeout()));
}

void evaluator::check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate,
                            evidence& kept) {
  correctness_report report;
  std::filesystem::path previous_dir;
  for (int index = 0; index < m_config.seeds; ++index) {
    const std::uint64_t seed = m_seeds->check(index);
    const auto dir = m_scratch.fresh(fmt::format("{}/seed{}", task.name, index));
    // Mapped arrays outlive their files: keep scratch memory to the seed in flight.
    if (!previous_dir.empty()) std::filesystem::remove_all(previous_dir);
    previous_dir = dir;
    const auto reference_reply = make_reference(reference_request(task, seed, dir));
    if (index == 0) load_candidate(result, task, candidate, reference_reply);
    auto [reference, first] = run_candidate(reference_reply, dir / "out_first.npy", dir / "out_second.npy");
    const auto second = npy_array::open(dir / "out_second.npy");
    auto outcome = check_seed(seed, first, second, reference, task.tol, task.order_dependent);
    outcome.against_reference = judge_case(std::move(outcome.against_reference), reference_request(task, seed, dir),
                                           reference, task.tol);
    report.add(std::move(outcome));
    result.seeds.push_back(seed);
    kept.seeds.push_back({std::move(first), std::move(reference)});
    if (!report.passed()) break;  // a failing seed is enough; more seeds only cost time
  }
  report.set_stress_skipped(task.stress_skipped);
  report.set_below_class(m_below_class);
  result.correctness = report;
  if (!report.passed()) {
    m_phase = failure_phase::check;
    throw failed_check(report.first_failure().value_or("failed"));
  }
}

void evaluator::check_stress(task_result& result, const task_info& task) {
  auto& report = *result.correctness;
  for (const auto& name : task.stress_cases) {
    const std::uint64_t seed = m_seeds->stress(name);
    const auto dir = m_scratch.fresh(fmt::format("{}/stress_{}", task.name, name));
    auto request = reference_request(task, seed, dir);
    request.stress = name;
    const auto reference_reply = make_reference(request);
    auto [reference, output] = run_candidate(reference_reply, dir / "out.npy", {});
    stress_outcome outcome{name, seed, 1, {}, reference_reply.large_factor};
    const auto tol = stress_tolerance(task.tol, reference, outcome.atol_scale);
    outcome.against_reference = judge_case(compare(output, reference, tol), request, reference, tol);
    report.add(std::move(outcome));
    std::filesystem::remove_all(dir);
  }
  // Every case runs (the record names each case's error); the first failure is the verdict's.
  if (!report.passed()) {
    m_phase = failure_phase::check;
    throw failed_check(report.first_failure().value_or("failed"));
  }
}

std::pair<npy_array, npy_array> evaluator::run_candidate(const protocol::reference_reply& reference_reply,
                                                         const std::filesystem::path& output,
                                                         const std::filesystem::path& second_output) {
  // Map the reference output, then unlink it: the candidate's process cannot find it on disk.
  auto reference = npy_array::open(reference_reply.output.path);
  std::filesystem::remove(reference.path());
  m_phase = failure_phase::run;
  protocol::run_request request{reference_reply.input_paths(), {output.string()}};
  if (!second_output.empty()) request.outputs.push_back(second_output.string());
  const auto reply = [&] {
    const auto lease = gpu_work();
    return protocol::run_reply::from_json(protocol::call(m_pool.executor(), request, timeout()));
  }();
  // Checked before reading: a dtype .npy cannot describe (bfloat16 is stored as raw 2-byte
  // void) must read as the wrong dtype it is, not as a malformed file.
  const auto& produced = reply.outputs.empty() ? std::string("?") : reply.outputs.front().dtype;
  if (produced != reference_reply.output.dtype)
    throw wrong_output(fmt::format("dtype {} differs from the reference's {}", produced, reference_reply.output.dtype));
  return {std::move(reference), npy_array::open(output)};
}

comparison evaluator::judge_case(comparison candidate, protocol::reference_request request,
                                 const npy_array& reference, const tolerance& tol) {
  if (!needs_platform(candidate, m_below_class)) return judged_by_tolerance(std::move(candidate));
  const auto phase = std::exchange(m_phase, failure_phase::reference);
  const auto asking = m_clock.enter(work_phase::reference);
  request.platform = true;
  request.inputs_only = false;
  const auto reply = [&] {
    const auto lease = gpu_work();
    return protocol::reference_reply::from_json(protocol::call(m_pool.reference(), request, timeout()));
  }();
  const auto platform = npy_array::open(reply.output.path);
  std::filesystem::remove(platform.path());
  m_phase = phase;
  return judge_against_platform(std::move(candidate), compare(platform, reference, tol), m_below_class);
}

void evaluator::screen(task_result& result, const task_info& task, const evidence& kept) {
  filter_inputs in;
  for (const auto& [output, reference] : kept.seeds) in.seeds.push_back({&output, &reference});
  // Each input perturbed within its domain on seed 0's inputs, one at a time.
  std::vector<std::pair<npy_array, npy_array>> perturbed;
  perturbed.reserve(task.inputs.size());
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto dir = m_scratch.fresh(fmt::format("{}/perturb{}", task.name, i));
    auto request = reference_request(task, result.seeds.front(), dir);
    request.perturb = i;
    auto [reference, output] = run_candidate(make_reference(request), dir / "out.npy", {});
    perturbed.emplace_back(std::move(output), std::move(reference));
    std::filesystem::remove_all(dir);
  }
  for (std::size_t i = 0; i < perturbed.size(); ++i)
    in.perturbations.push_back({task.inputs[i].name, in.seeds.front(), {&perturbed[i].first, &perturbed[i].second}});
  in.input_count = task.inputs.size();
  in.analysis = m_analysis ? &*m_analysis : nullptr;
  in.source = result.candidate.source;
  in.task_modules_loaded = result.task_modules_loaded;
  in.tol = task.tol;
  bool all_passed = false;
  result.filters = run_filters(default_filters(), in, all_passed);
  result.robustness_passed = all_passed;
}

}  // namespace pallasbench
