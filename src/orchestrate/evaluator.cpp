#include "pallasbench/evaluator.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "pallasbench/compiler_record.hpp"
#include "pallasbench/correctness.hpp"
#include "pallasbench/filters.hpp"
#include "pallasbench/timing_replies.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

std::vector<std::string> input_paths(const json& reference_reply) {
  std::vector<std::string> paths;
  for (const auto& in : reference_reply.at("inputs")) paths.push_back(in.at("path").get<std::string>());
  return paths;
}

// The candidate's output cannot match the reference whatever its values.
class wrong_output : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

task_status status_for(const std::string& kind) {
  if (kind == "compile_error") return task_status::compile_error;
  if (kind == "runtime_error") return task_status::runtime_error;
  return task_status::harness_error;  // task_error, usage_error: the harness or task is at fault
}

// A filter that could not run is a failed filter with its reason, never a silent pass.
void mark_filters_not_run(task_result& result) {
  result.robustness_passed = false;
  for (const auto& filter : default_filters())
    if (!result.filters.contains(filter->name()))
      result.filters[filter->name()] = {{"passed", false},
                                        {"value", nullptr},
                                        {"threshold", nullptr},
                                        {"reason", fmt::format("not run: status {}", status_name(result.status))}};
}

}  // namespace

worker& worker_pool::reference() {
  if (!m_reference) m_reference = std::make_unique<worker>(m_options);
  return *m_reference;
}

worker& worker_pool::candidate() {
  if (!m_candidate) m_candidate = std::make_unique<worker>(m_options);
  return *m_candidate;
}

void worker_pool::clear_stderr_tails() {
  if (m_reference) m_reference->clear_stderr_tail();
  if (m_candidate) m_candidate->clear_stderr_tail();
}

void worker_pool::discard_reference() { m_reference.reset(); }
void worker_pool::discard_candidate() { m_candidate.reset(); }

evaluator::evaluator(worker_pool& pool, const scratch_dir& scratch, run_config config, timing_options timing,
                     json environment, std::optional<std::string> project_sha, std::string run_id)
    : m_pool(pool),
      m_scratch(scratch),
      m_config(std::move(config)),
      m_timing(timing),
      m_environment(std::move(environment)),
      m_project_sha(std::move(project_sha)),
      m_run_id(std::move(run_id)) {}

std::chrono::milliseconds evaluator::timeout() const {
  return std::chrono::milliseconds(static_cast<long>(m_config.timeout_s * 1000));
}

json evaluator::make_reference(const task_info& task, std::uint64_t seed, const std::filesystem::path& dir) {
  m_phase = "reference";
  return m_pool.reference().call(
      {{"cmd", "reference"}, {"task", task.name}, {"size", m_config.size}, {"seed", seed}, {"dir", dir.string()}},
      timeout());
}

void evaluator::load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                               const json& reference_reply) {
  m_phase = "load";
  json specs = json::array();
  for (const auto& in : reference_reply.at("inputs"))
    specs.push_back({{"shape", in.at("shape")}, {"dtype", in.at("dtype")}});
  const json which = candidate.kind == "user" ? json{{"file", candidate.file.string()}} : json{{"task", task.name}};
  json request = {{"cmd", "load"},
                  {"candidate", which},
                  {"inputs", specs},
                  {"task_name", candidate.kind == "user" ? json(nullptr) : json(task.name)},
                  {"artifacts", {{"mode", m_artifacts.mode}, {"pass_trail", m_artifacts.pass_trail}}}};
  if (m_artifacts.mode != "none") request["artifacts"]["dir"] = m_scratch.fresh(task.name + "/compiler").string();
  const auto reply = m_pool.candidate().call(request, timeout());
  result.candidate.source = reply.value("source", "");
  result.candidate.bundled_source = reply.value("bundled_source", result.candidate.source);
  result.candidate.sha256 = reply.value("sha256", candidate.sha256);
  if (reply.contains("reference_source") && reply["reference_source"].is_string())
    result.candidate.reference_source = reply["reference_source"];
  result.jaxpr = reply.value("jaxpr", "");
  result.stablehlo = reply.value("stablehlo", "");
  result.pallas_calls = reply.value("pallas_calls", json::array());
  result.jaxpr_graph = reply.value("jaxpr_graph", json::array());
  result.jaxpr_dag = reply.value("jaxpr_dag", json(nullptr));
  result.task_modules_loaded = reply.value("task_modules_loaded", std::vector<std::string>{});
  result.lower_s = reply.value("lower_s", 0.0);
  result.compile_s = reply.value("compile_s", 0.0);
  result.memory = reply.value("memory", json::object());
  m_pending_artifacts = reply.value("artifacts", json::object());
  if (!m_pending_artifacts.value("capture_pending", false)) {
    keep_artifacts(result, m_pending_artifacts);
    m_pending_artifacts = nullptr;
  }
}

void evaluator::finish_artifacts(task_result& result) {
  if (m_pending_artifacts.is_null()) return;
  json captured = std::move(m_pending_artifacts);
  m_pending_artifacts = nullptr;
  try {
    const auto reply = m_pool.candidate().call({{"cmd", "artifacts"}}, timeout());
    if (reply.contains("artifacts") && reply["artifacts"].is_object()) captured = reply["artifacts"];
  } catch (const command_failed& e) {
    captured["unavailable"]["ptx"] = fmt::format("collecting the background capture failed: {}", e.what());
  }
  keep_artifacts(result, captured);
}

void evaluator::keep_artifacts(task_result& result, const json& captured) {
  const auto relative_dir = std::filesystem::path("artifacts") /
                            fmt::format("{}.{}.{}", result.task.name, m_config.size, result.uuid.substr(0, 8));
  // Files need a folder beside the records; without one (eval with no --out) they go inline.
  result.compiler = compiler_record(
      captured, m_artifacts.mode == "files" ? m_artifacts.records_dir : std::filesystem::path{}, relative_dir);
}

void evaluator::check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate,
                            evidence& kept) {
  correctness_report report;
  std::filesystem::path previous_dir;
  for (std::uint64_t seed = 0; seed < static_cast<std::uint64_t>(m_config.seeds); ++seed) {
    const auto dir = m_scratch.fresh(fmt::format("{}/seed{}", task.name, seed));
    // Mapped arrays outlive their files: keep scratch memory to the seed in flight.
    if (!previous_dir.empty()) std::filesystem::remove_all(previous_dir);
    previous_dir = dir;
    const auto reference_reply = make_reference(task, seed, dir);
    if (seed == 0) load_candidate(result, task, candidate, reference_reply);
    auto [reference, first] = run_candidate(reference_reply, dir / "out_first.npy", dir / "out_second.npy");
    const auto second = npy_array::open(dir / "out_second.npy");
    report.add(check_seed(seed, first, second, reference, task.tol, task.order_dependent));
    result.seeds.push_back(seed);
    kept.last_inputs = reference_reply.at("inputs");
    kept.seeds.push_back({std::move(first), std::move(reference)});
    if (!report.passed()) break;  // a failing seed is enough; more seeds only cost time
  }
  result.correctness = report;
  result.status = report.passed() ? task_status::ok : task_status::incorrect;
  if (!report.passed()) result.failure = failure_info{"check", report.first_failure().value_or("failed"), ""};
}

std::pair<npy_array, npy_array> evaluator::run_candidate(const json& reference_reply,
                                                         const std::filesystem::path& output,
                                                         const std::filesystem::path& second_output) {
  // Map the reference output, then unlink it: the candidate's process cannot find it on disk.
  auto reference = npy_array::open(reference_reply.at("output").at("path").get<std::string>());
  std::filesystem::remove(reference.path());
  m_phase = "run";
  json outputs = {output.string()};
  if (!second_output.empty()) outputs.push_back(second_output.string());
  const auto reply = m_pool.candidate().call(
      {{"cmd", "run"}, {"inputs", input_paths(reference_reply)}, {"outputs", outputs}}, timeout());
  // Checked before reading: a dtype .npy cannot describe (bfloat16 is stored as raw 2-byte
  // void) must read as the wrong dtype it is, not as a malformed file.
  const auto produced = reply.at("outputs").at(0).value("dtype", "?");
  const auto expected = reference_reply.at("output").value("dtype", "?");
  if (produced != expected)
    throw wrong_output(fmt::format("dtype {} differs from the reference's {}", produced, expected));
  return {std::move(reference), npy_array::open(output)};
}

void evaluator::check_robustness(task_result& result, const task_info& task, evidence& kept) {
  filter_inputs in;
  for (const auto& [output, reference] : kept.seeds) in.seeds.push_back({&output, &reference});
  // Each input perturbed within its domain on seed 0's inputs, one at a time.
  std::vector<std::pair<npy_array, npy_array>> perturbed;
  perturbed.reserve(task.inputs.size());
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto dir = m_scratch.fresh(fmt::format("{}/perturb{}", task.name, i));
    m_phase = "reference";
    const auto reply = m_pool.reference().call({{"cmd", "reference"},
                                                {"task", task.name},
                                                {"size", m_config.size},
                                                {"seed", 0},
                                                {"perturb", i},
                                                {"dir", dir.string()}},
                                               timeout());
    auto [reference, output] = run_candidate(reply, dir / "out.npy", {});
    perturbed.emplace_back(std::move(output), std::move(reference));
    std::filesystem::remove_all(dir);
  }
  for (std::size_t i = 0; i < perturbed.size(); ++i)
    in.perturbations.push_back({task.inputs[i].name, in.seeds.front(), {&perturbed[i].first, &perturbed[i].second}});
  in.input_count = task.inputs.size();
  in.jaxpr_graph = result.jaxpr_graph;
  in.source = result.candidate.source;
  in.task_modules_loaded = result.task_modules_loaded;
  in.task_flops = task.flops.contains(m_config.size) ? static_cast<double>(task.flops.at(m_config.size)) : 0.0;
  in.tol = task.tol;
  bool all_passed = false;
  result.filters = run_filters(default_filters(), in, all_passed);
  result.robustness_passed = all_passed;
}

void evaluator::time_kernel(task_result& result, const task_info& task, const json& inputs) {
  std::vector<std::string> paths;
  for (const auto& in : inputs) paths.push_back(in.at("path").get<std::string>());
  // The speed baseline runs at the kernel's precision class: XLA's default (TF32 allowed) when
  // the kernel uses TF32, full f32 otherwise.
  const std::string precision = task.uses_tf32 ? "default" : "highest";
  struct side {
    worker& process;
    json request;
    std::string phase;
    side_sampling sampling;
    bool warm = false;
  };
  side kernel{m_pool.candidate(), {{"cmd", "time"}, {"inputs", paths}}, "time", side_sampling(m_timing.stopping)};
  side reference{m_pool.reference(),
                 {{"cmd", "time_reference"}, {"inputs", paths}, {"task", task.name}, {"precision", precision}},
                 "time_reference",
                 side_sampling(m_timing.stopping)};
  timing_result timing;
  timing.reference_precision = precision;
  const json max_clock = m_environment.value(json::json_pointer("/gpu/device/sm_clock_max_mhz"), json(nullptr));
  if (max_clock.is_number()) timing.sm_clock_max_mhz = max_clock.get<double>();
  // Alternate batches of kernel and reference samples, so drift hits both; the stopping rule
  // (C++) decides when each has enough.
  while (!kernel.sampling.rule.finished() || !reference.sampling.rule.finished()) {
    for (side* s : {&kernel, &reference}) {
      if (s->sampling.rule.finished()) continue;
      m_phase = s->phase;
      const auto reply = s->process.call(batch_request(s->request, s->sampling.typical_cost_us(), s->warm), timeout());
      s->warm = true;
      add_timing_reply(reply, s->sampling, timing);
      if (s == &kernel && reply.contains("peak_bytes") && reply["peak_bytes"].is_number())
        result.peak_bytes = reply["peak_bytes"];
    }
  }
  auto finish = [](side& s) {
    const auto& rule = s.sampling.rule;
    s.sampling.kept.series = timed_series{summarize(rule.samples()), rule.converged(), rule.state()};
    return std::move(s.sampling.kept);
  };
  timing.kernel = finish(kernel);
  timing.reference = finish(reference);
  result.timing = std::move(timing);
}

json evaluator::batch_request(json request, double typical_cost_us, bool warm) const {
  const int batch = batch_size(typical_cost_us, m_timing.batch_seconds, m_timing.stopping.min_samples);
  request["warmup"] = warm ? 0 : m_timing.warmup;
  request["min_samples"] = batch;
  request["max_samples"] = batch;
  request["min_seconds"] = 0;
  // One batch may take at most the batch's share of time (device-timed samples cost far more host
  // time than they measure: flush, dispatch, synchronisation).
  request["max_seconds"] = std::min(m_timing.stopping.budget_s, std::max(m_timing.batch_seconds * 4, 0.2));
  return request;
}

task_result evaluator::evaluate(const task_info& task, const candidate_spec& candidate) {
  task_result result;
  result.run_id = m_run_id;
  result.uuid = make_uuid();
  result.task = task;
  result.config = m_config;
  result.candidate.kind = candidate.kind;
  result.candidate.path = candidate.kind == "user" ? candidate.file.string() : task.path;
  result.candidate.sha256 = candidate.sha256;
  result.environment = m_environment;
  result.project_sha = m_project_sha;
  m_pool.clear_stderr_tails();
  const auto task_dir = m_scratch.fresh(task.name);
  try {
    evidence kept;
    check_seeds(result, task, candidate, kept);
    if (result.status == task_status::ok) {
      check_robustness(result, task, kept);
      finish_artifacts(result);  // before timing: the capture compile and tools must not compete with the samples
      if (m_timing.enabled) time_kernel(result, task, kept.last_inputs);
    }
  } catch (const command_failed& e) {
    result.status = status_for(e.kind());
    result.failure = failure_info{m_phase, e.what(), e.traceback()};
  } catch (const worker_failure& e) {
    result.status = e.what_kind() == worker_failure::kind::timeout ? task_status::timeout : task_status::crashed;
    const bool reference_side = m_phase == "reference" || m_phase == "time_reference";
    if (reference_side) {
      result.status = task_status::harness_error;  // the reference itself hung or died
      m_pool.discard_reference();
    } else {
      m_pool.discard_candidate();
    }
    result.failure = failure_info{m_phase, e.what(), ""};
    result.stderr_tail = e.stderr_tail();
  } catch (const wrong_output& e) {
    result.status = task_status::incorrect;
    result.failure = failure_info{m_phase, e.what(), ""};
  } catch (const npy_error& e) {
    result.status = task_status::incorrect;
    result.failure = failure_info{m_phase, fmt::format("output cannot be checked: {}", e.what()), ""};
  } catch (const interrupted_error&) {
    throw;
  } catch (const std::exception& e) {
    result.status = task_status::harness_error;
    result.failure = failure_info{m_phase, e.what(), ""};
  }
  if (!m_pending_artifacts.is_null() && m_pool.has_candidate()) {
    try {
      finish_artifacts(result);
    } catch (const std::exception&) {  // the task's status already says what went wrong
      m_pending_artifacts = nullptr;
    }
  }
  m_pending_artifacts = nullptr;
  if (!result.robustness_passed) mark_filters_not_run(result);
  if (result.stderr_tail.empty() && result.status != task_status::ok && m_pool.has_candidate()) {
    // Worker stderr explains most failures (tracebacks, XLA messages): keep its tail.
    result.stderr_tail = m_pool.candidate().stderr_tail();
  }
  std::error_code ignored;
  std::filesystem::remove_all(task_dir, ignored);
  return result;
}

}  // namespace pallasbench
