#include "pallasbench/evaluator.hpp"

#include <fmt/format.h>

#include "pallasbench/correctness.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

std::vector<std::string> input_paths(const json& reference_reply) {
  std::vector<std::string> paths;
  for (const auto& in : reference_reply.at("inputs")) paths.push_back(in.at("path").get<std::string>());
  return paths;
}

task_status status_for(const std::string& kind) {
  if (kind == "compile_error") return task_status::compile_error;
  if (kind == "runtime_error") return task_status::runtime_error;
  return task_status::harness_error;  // task_error, usage_error: the harness or task is at fault
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
    : m_pool(pool), m_scratch(scratch), m_config(std::move(config)), m_timing(timing),
      m_environment(std::move(environment)), m_project_sha(std::move(project_sha)), m_run_id(std::move(run_id)) {}

std::chrono::milliseconds evaluator::timeout() const {
  return std::chrono::milliseconds(static_cast<long>(m_config.timeout_s * 1000));
}

json evaluator::make_reference(const task_info& task, std::uint64_t seed, const std::filesystem::path& dir) {
  m_phase = "reference";
  return m_pool.reference().call({{"cmd", "reference"}, {"task", task.name}, {"size", m_config.size},
                                  {"seed", seed}, {"dir", dir.string()}},
                                 timeout());
}

void evaluator::load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                               const json& reference_reply) {
  m_phase = "load";
  json specs = json::array();
  for (const auto& in : reference_reply.at("inputs")) specs.push_back({{"shape", in.at("shape")}, {"dtype", in.at("dtype")}});
  const json which = candidate.kind == "user" ? json{{"file", candidate.file.string()}} : json{{"task", task.name}};
  const auto reply = m_pool.candidate().call({{"cmd", "load"}, {"candidate", which}, {"inputs", specs},
                                              {"task_name", candidate.kind == "user" ? json(nullptr) : json(task.name)}},
                                             timeout());
  result.candidate.source = reply.value("source", "");
  result.candidate.bundled_source = reply.value("bundled_source", result.candidate.source);
  result.candidate.sha256 = reply.value("sha256", candidate.sha256);
  if (reply.contains("reference_source") && reply["reference_source"].is_string())
    result.candidate.reference_source = reply["reference_source"];
  result.jaxpr = reply.value("jaxpr", "");
  result.stablehlo = reply.value("stablehlo", "");
  result.pallas_calls = reply.value("pallas_calls", json::array());
  result.lower_s = reply.value("lower_s", 0.0);
  result.compile_s = reply.value("compile_s", 0.0);
  result.memory = reply.value("memory", json::object());
}

void evaluator::check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate) {
  correctness_report report;
  json last_inputs;
  std::filesystem::path previous_dir;
  for (std::uint64_t seed = 0; seed < static_cast<std::uint64_t>(m_config.seeds); ++seed) {
    const auto dir = m_scratch.fresh(fmt::format("{}/seed{}", task.name, seed));
    if (!previous_dir.empty()) std::filesystem::remove_all(previous_dir);  // keep scratch memory to one seed
    previous_dir = dir;
    const auto reference_reply = make_reference(task, seed, dir);
    if (seed == 0) load_candidate(result, task, candidate, reference_reply);
    // Map the reference output, then unlink it: the candidate's process cannot find it on disk.
    const auto reference = npy_array::open(reference_reply.at("output").at("path").get<std::string>());
    std::filesystem::remove(reference.path());
    m_phase = "run";
    const auto first_path = dir / "out_first.npy", second_path = dir / "out_second.npy";
    m_pool.candidate().call({{"cmd", "run"}, {"inputs", input_paths(reference_reply)},
                             {"outputs", {first_path.string(), second_path.string()}}},
                            timeout());
    const auto first = npy_array::open(first_path), second = npy_array::open(second_path);
    report.add(check_seed(seed, first, second, reference, task.tol, task.order_dependent));
    result.seeds.push_back(seed);
    last_inputs = reference_reply.at("inputs");
    if (!report.passed()) break;  // a failing seed is enough; more seeds only cost time
  }
  result.correctness = report;
  result.status = report.passed() ? task_status::ok : task_status::incorrect;
  if (!report.passed()) result.failure = failure_info{"check", report.first_failure().value_or("failed"), ""};
  else if (m_timing.enabled) time_kernel(result, task, last_inputs);
}

void evaluator::time_kernel(task_result& result, const task_info& task, const json& inputs) {
  std::vector<std::string> paths;
  for (const auto& in : inputs) paths.push_back(in.at("path").get<std::string>());
  const json request = {{"inputs", paths},
                        {"warmup", m_timing.warmup},
                        {"min_samples", m_timing.min_samples},
                        {"min_seconds", m_timing.min_seconds},
                        {"max_samples", m_timing.max_samples},
                        {"max_seconds", m_timing.max_seconds}};
  m_phase = "time";
  auto kernel_request = request;
  kernel_request["cmd"] = "time";
  const auto kernel = m_pool.candidate().call(kernel_request, timeout());
  wall_timing timing{summarize(kernel.at("samples_us").get<std::vector<double>>()), std::nullopt, ""};
  if (kernel.contains("peak_bytes") && kernel["peak_bytes"].is_number()) result.peak_bytes = kernel["peak_bytes"];
  // The speed baseline runs at the kernel's precision class: XLA's default (TF32 allowed) when
  // the kernel uses TF32, full f32 otherwise.
  timing.reference_precision = task.uses_tf32 ? "default" : "highest";
  m_phase = "time_reference";
  auto reference_request = request;
  reference_request["cmd"] = "time_reference";
  reference_request["task"] = task.name;
  reference_request["precision"] = timing.reference_precision;
  timing.reference = summarize(m_pool.reference().call(reference_request, timeout()).at("samples_us").get<std::vector<double>>());
  result.timing = timing;
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
    check_seeds(result, task, candidate);
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
  } catch (const npy_error& e) {
    result.status = task_status::incorrect;
    result.failure = failure_info{m_phase, fmt::format("output cannot be checked: {}", e.what()), ""};
  } catch (const interrupted_error&) {
    throw;
  } catch (const std::exception& e) {
    result.status = task_status::harness_error;
    result.failure = failure_info{m_phase, e.what(), ""};
  }
  if (result.stderr_tail.empty() && result.status != task_status::ok && m_pool.has_candidate()) {
    // Worker stderr explains most failures (tracebacks, XLA messages): keep its tail.
    result.stderr_tail = m_pool.candidate().stderr_tail();
  }
  std::error_code ignored;
  std::filesystem::remove_all(task_dir, ignored);
  return result;
}

}  // namespace pallasbench
