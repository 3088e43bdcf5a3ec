// What a run is asked to do, as the evaluator and the runner read it: the size, the device, the
// seeds, the waits, and the resume key that depends on them.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "pallasbench/core/enum_names.hpp"
#include "pallasbench/suite/backend.hpp"
#include "pallasbench/suite/dtype.hpp"
#include "pallasbench/suite/shard.hpp"
#include "pallasbench/suite/size.hpp"

namespace pallasbench {

// --device: automatic picks the GPU when JAX sees one.
enum class device_choice { automatic, cpu, gpu };
// The device a run resolved to: the GPU, or the CPU in Pallas interpret mode.
enum class device_kind { cpu, gpu };
// --artifacts: PTX/SASS inline in the record, as files beside it, or not captured.
enum class artifact_mode { inline_text, files, none };

template <>
struct enum_names<device_choice> {
  static constexpr std::string_view what = "device";
  static constexpr std::array entries{
      std::pair{device_choice::automatic, std::string_view("auto")},
      std::pair{device_choice::gpu, std::string_view("gpu")},
      std::pair{device_choice::cpu, std::string_view("cpu")},
  };
};

template <>
struct enum_names<device_kind> {
  static constexpr std::string_view what = "device";
  static constexpr std::array entries{
      std::pair{device_kind::cpu, std::string_view("cpu")},
      std::pair{device_kind::gpu, std::string_view("gpu")},
  };
};

template <>
struct enum_names<artifact_mode> {
  static constexpr std::string_view what = "artifact mode";
  static constexpr std::array entries{
      std::pair{artifact_mode::inline_text, std::string_view("inline")},
      std::pair{artifact_mode::files, std::string_view("files")},
      std::pair{artifact_mode::none, std::string_view("none")},
  };
};

// Every wait of the harness on a worker, from --timeout: a process's start and greeting, and
// each command it is sent (load+compile, each run, each timing batch, describing the suite,
// measuring the device). A start is the harness's own cost (importing JAX, which takes several
// seconds on a loaded machine) and waits at least k_min_startup whatever --timeout says: a short
// timeout is for candidates' commands, and must not turn a slow start into a harness error.
inline constexpr std::chrono::milliseconds k_min_startup{std::chrono::seconds(60)};

struct timeouts {
  std::chrono::milliseconds startup{std::chrono::seconds(300)};
  std::chrono::milliseconds command{std::chrono::seconds(300)};

  [[nodiscard]] static timeouts from_seconds(double seconds);
};

// Everything the key of a record depends on: a rerun with the same configuration is a duplicate.
struct run_config {
  problem_size size = problem_size::small;
  device_kind device = device_kind::cpu;
  int seeds = 3;
  double timeout_s = 300;
  // --seed S: every evaluation's seed; none: each draws its own from OS entropy. Not part of
  // the resume key (to_json): a resumed run keeps records whatever seeds they drew.
  std::optional<std::uint64_t> seed;
  // --shard I/N: the record says which share of the work it was (its `shard`). Not part of the
  // resume key either: the merged records of N shards resume the unsharded run.
  std::optional<shard_spec> shard;
  // --dtype: part of the key, written only when not float32, so that float32 records keep the
  // keys they had before the dtype axis (--resume over an older folder still resumes).
  float_dtype dtype = float_dtype::float32;
  // The implementation of a suite task that is evaluated (part of the key); none for a user's
  // candidate, which is what its module holds.
  std::optional<kernel_backend> backend;

  [[nodiscard]] nlohmann::json to_json() const;
  [[nodiscard]] std::string size_name() const { return std::string(to_string(size)); }
  // How lines and tables name the evaluation beside its task: "small", "small/bfloat16",
  // "small/bfloat16/mosaic_gpu" (Triton, the backend every task has, goes unnamed).
  [[nodiscard]] std::string label() const;
  [[nodiscard]] timeouts waits() const { return timeouts::from_seconds(timeout_s); }
};

// The resume key: task, size, candidate hash and configuration (FNV-1a 64 of their canonical
// JSON, with the record schema's version).
[[nodiscard]] std::string config_hash(const std::string& task, const std::string& candidate_sha256,
                                      const run_config& config);

}  // namespace pallasbench
