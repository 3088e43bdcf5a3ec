// The evaluator's and the runner's tests: a worker pool whose three roles are fake_roles.py,
// scripted by FAKE_SCENARIO (see that file), with the log of every request the fakes received.
#pragma once

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "npy_writer.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/orchestrate/worker_pool.hpp"

namespace pallasbench::testing {

// Sets an environment variable for the scope (the non-sandboxed workers inherit ours).
class scoped_env {
public:
  scoped_env(std::string name, const std::string& value) : m_name(std::move(name)) {
    if (const char* old = std::getenv(m_name.c_str())) m_old = old;
    ::setenv(m_name.c_str(), value.c_str(), 1);
  }
  ~scoped_env() {
    if (m_old)
      ::setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  std::string m_name;
  std::optional<std::string> m_old;
};

// The interrupt handlers installed for the scope (the previous dispositions restored after it),
// and the interrupt flag cleared on both ends.
class scoped_interrupt_handlers {
public:
  scoped_interrupt_handlers() {
    for (std::size_t i = 0; i < k_signals.size(); ++i) ::sigaction(k_signals[i], nullptr, &m_old[i]);
    clear_interrupt();
    install_interrupt_handlers();
  }
  ~scoped_interrupt_handlers() {
    for (std::size_t i = 0; i < k_signals.size(); ++i) ::sigaction(k_signals[i], &m_old[i], nullptr);
    clear_interrupt();
  }
  scoped_interrupt_handlers(const scoped_interrupt_handlers&) = delete;
  scoped_interrupt_handlers& operator=(const scoped_interrupt_handlers&) = delete;

private:
  static constexpr std::array<int, 3> k_signals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> m_old{};
};

inline bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

inline std::vector<nlohmann::json> read_json_lines(const std::filesystem::path& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// A failed result's message, for assertions' output.
inline std::string message_of(const task_result& r) {
  return r.failure ? r.failure->message : std::string("(no failure)");
}

// The processes that served `requests` (the fakes log their pid with each).
inline std::set<long> pids_of(const std::vector<nlohmann::json>& requests) {
  std::set<long> pids;
  for (const auto& r : requests) pids.insert(r.at("pid").get<long>());
  return pids;
}

// A pool of fakes playing `scenario` (with more environment variables for them in `env`), its
// request log, scratch space and an evaluator.
struct fake_harness {
  explicit fake_harness(const std::string& scenario, const std::vector<std::pair<std::string, std::string>>& env = {})
      : scenario_env("FAKE_SCENARIO", scenario), log_env("FAKE_LOG", log_path().string()) {
    for (const auto& [name, value] : env) more_env.push_back(std::make_unique<scoped_env>(name, value));
    pool = std::make_unique<worker_pool>(options());
  }

  // What a pool of fakes is made with (lanes make pools of their own from it).
  static worker_options options() {
    worker_options o;
    o.project_root = PALLASBENCH_TEST_DATA;
    o.command = {"python3", std::string(PALLASBENCH_TEST_DATA) + "/orchestrate/fake_roles.py"};
    o.startup_timeout = std::chrono::seconds(30);
    return o;
  }

  static run_config config(double timeout_s = 10) {
    run_config c;
    c.size = problem_size::small;
    c.device = device_kind::cpu;
    c.seeds = 2;
    c.timeout_s = timeout_s;
    c.seed = 42;
    return c;
  }

  evaluator& make_evaluator(const run_config& c = config(), timing_options timing = {.enabled = false}) {
    eval = std::make_unique<evaluator>(*pool, scratch, c, std::move(timing), nlohmann::json{{"backend", "cpu"}},
                                       std::nullopt, "test-run");
    return *eval;
  }

  // The fake tasks as the fake reference process describes them.
  std::vector<task_info> describe(const std::vector<std::string>& names) {
    const auto reply = pool->reference().call({{"cmd", "describe"}, {"tasks", names}}, std::chrono::seconds(30));
    std::vector<task_info> tasks;
    for (const auto& t : reply.at("tasks")) tasks.push_back(task_info::from_json(t));
    return tasks;
  }
  task_info task(const std::string& name) { return describe({name}).front(); }

  static candidate_spec suite_candidate(const task_info& task) {
    candidate_spec c;
    c.kind = candidate_kind::suite;
    c.sha256 = task.sha256;
    return c;
  }

  // Every request the fakes received, in order; or those of one role and command (and task).
  [[nodiscard]] std::vector<nlohmann::json> requests() const { return read_json_lines(log_path()); }
  [[nodiscard]] std::vector<nlohmann::json> requests(const std::string& role, const std::string& cmd,
                                                     const std::string& task = "") const {
    std::vector<nlohmann::json> out;
    for (auto& r : requests())
      if (r["role"] == role && r["cmd"] == cmd && (task.empty() || r["task"] == task)) out.push_back(std::move(r));
    return out;
  }
  // The reference requests that made an output (each follows an inputs_only request of the same
  // fields: the inputs are drawn holding no device lease).
  [[nodiscard]] std::vector<nlohmann::json> reference_outputs(const std::string& task = "") const {
    auto all = requests("reference", "reference", task);
    std::erase_if(all, [](const nlohmann::json& r) {
      return r.at("req").value("inputs_only", false) || r.at("req").value("platform", false);
    });
    return all;
  }
  // The requests for XLA's output at the task's precision class (check/platform.hpp).
  [[nodiscard]] std::vector<nlohmann::json> platform_outputs(const std::string& task = "") const {
    auto all = requests("reference", "reference", task);
    std::erase_if(all, [](const nlohmann::json& r) { return !r.at("req").value("platform", false); });
    return all;
  }
  void clear_log() const { std::filesystem::remove(log_path()); }
  [[nodiscard]] std::filesystem::path log_path() const { return dir / "requests.jsonl"; }

  // In this order: the log's folder first; the workers end before the scratch space goes.
  temp_dir dir;
  scoped_env scenario_env, log_env;
  std::vector<std::unique_ptr<scoped_env>> more_env;
  scratch_dir scratch;
  std::unique_ptr<worker_pool> pool;
  std::unique_ptr<evaluator> eval;
};

}  // namespace pallasbench::testing
