// Robustness filter cost over a 1 GiB float32 output (goal: under 1 s on one core).
// Run: build/filters_benchmark [--benchmark_filter=...]; arrays live in /dev/shm (or /tmp).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "pallasbench/filters.hpp"

namespace {

using namespace pallasbench;

constexpr std::int64_t k_rows = 16384, k_cols = 16384;  // 2^28 float32 = 1 GiB

std::filesystem::path scratch() {
  return std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
}

// Writes a (16384, 16384) float32 .npy of y = x + offset with x ~ a cheap pseudo-random pattern.
std::filesystem::path make_array(const std::string& name, float offset) {
  const auto path = scratch() / ("pallasbench-bench-" + name + ".npy");
  if (std::filesystem::exists(path)) return path;
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 16384), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header;
  std::vector<float> row(k_cols);
  std::minstd_rand rng(42);
  std::normal_distribution<float> normal;
  for (std::int64_t r = 0; r < k_rows; ++r) {
    for (auto& v : row) v = normal(rng) + offset;
    out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * 4));
  }
  return path;
}

struct arrays {
  npy_array out = npy_array::open(make_array("out", 0.0f));
  npy_array ref = npy_array::open(make_array("ref", 1e-6f));
  npy_array out_p = npy_array::open(make_array("out_p", 0.05f));
  npy_array ref_p = npy_array::open(make_array("ref_p", 0.05f + 1e-6f));
  filter_inputs inputs() const {
    filter_inputs in;
    in.seeds = {{&out, &ref}};
    in.perturbations = {{"x", {&out, &ref}, {&out_p, &ref_p}}};
    in.input_count = 1;
    return in;
  }
};

const arrays& data() {
  static const arrays a;
  return a;
}

template <class Filter>
void run_filter(benchmark::State& state) {
  const auto in = data().inputs();
  const Filter filter;
  for (auto _ : state) benchmark::DoNotOptimize(filter.evaluate(in));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * k_rows * k_cols * 4);
}

void all_filters(benchmark::State& state) {
  const auto in = data().inputs();
  const auto filters = default_filters();
  for (auto _ : state) {
    bool passed = false;
    benchmark::DoNotOptimize(run_filters(filters, in, passed));
  }
}

BENCHMARK(run_filter<output_range_filter>)->Name("output_range/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<output_std_filter>)->Name("output_std/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<axes_variation_filter>)->Name("axes_variation/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(run_filter<input_impact_filter>)->Name("input_impact/1GiB")->Unit(benchmark::kMillisecond);
BENCHMARK(all_filters)->Name("all_five/1GiB")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
