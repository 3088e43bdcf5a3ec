#include "pallasbench/suite/shard.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace pallasbench {
namespace {

// The suite's 69 task names (tasks/level1..3), so the spread is checked on the real keys.
const std::vector<std::string> k_names = {"add",
                                          "batch_norm_1d",
                                          "batched_matmul",
                                          "clamp",
                                          "col_sum",
                                          "cosine_sim",
                                          "cross_entropy",
                                          "elu",
                                          "embedding_lookup",
                                          "exp",
                                          "gather",
                                          "gelu",
                                          "hardswish",
                                          "huber_loss",
                                          "layernorm",
                                          "leaky_relu",
                                          "log",
                                          "log_softmax",
                                          "matmul",
                                          "maximum",
                                          "mish",
                                          "mse_loss",
                                          "multiply",
                                          "nucleotide_onehot",
                                          "one_hot",
                                          "outer_product",
                                          "reduce_max",
                                          "reduce_mean",
                                          "reduce_sum",
                                          "relu",
                                          "rmsnorm",
                                          "rsqrt",
                                          "scatter_add",
                                          "sigmoid",
                                          "silu",
                                          "softmax",
                                          "softplus",
                                          "tanh",
                                          "fused_bias_gelu_dropout",
                                          "fused_gelu_bias",
                                          "fused_layer_norm_relu",
                                          "fused_matmul_bias",
                                          "fused_relu_matmul",
                                          "fused_softmax_cross_entropy",
                                          "gc_content",
                                          "geglu",
                                          "hamming_distance",
                                          "kmer_count",
                                          "layernorm_residual",
                                          "linear_bias_relu",
                                          "matmul_gelu",
                                          "matmul_relu",
                                          "matmul_silu",
                                          "pairwise_distance",
                                          "pwm_scan",
                                          "qk_softmax",
                                          "reverse_complement",
                                          "rmsnorm_residual",
                                          "sequence_match",
                                          "sigmoid_bce",
                                          "swiglu",
                                          "attention_forward",
                                          "conv1d_genomic",
                                          "flash_attention",
                                          "gated_mlp",
                                          "mlp_block",
                                          "multi_head_attention",
                                          "transformer_block",
                                          "triangle_update"};

std::vector<work_item> all_items() {
  std::vector<work_item> items;
  for (const auto& name : k_names)
    for (const auto size : {problem_size::small, problem_size::medium, problem_size::large})
      items.push_back({name, size, "float32", "sha-of-" + name});
  return items;
}

std::string parse_error(std::string_view text) {
  try {
    (void)shard_spec::parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(ShardSpec, ParsesIndexOfCount) {
  const auto shard = shard_spec::parse("2/8");
  EXPECT_EQ(shard.index(), 2);
  EXPECT_EQ(shard.count(), 8);
  EXPECT_EQ(shard.to_string(), "2/8");
  EXPECT_EQ(shard.to_json(), (nlohmann::json{{"index", 2}, {"count", 8}}));
  EXPECT_EQ(shard_spec::parse("1/1"), shard_spec(1, 1));
}

TEST(ShardSpec, RefusesBadTextSayingWhy) {
  EXPECT_EQ(parse_error("4/3"), "4/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("0/3"), "0/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("-1/3"), "-1/3: the index must be in 1..3");
  EXPECT_EQ(parse_error("1/0"), "1/0: the count must be at least 1");
  for (const auto* text : {"", "3", "/3", "1/", "a/3", "1/3x", " 1/3", "1 /3", "+1/3", "1/3/4", "99999999999/3"})
    EXPECT_EQ(parse_error(text), fmt::format("{}: expected I/N, shard I of N counting from 1 (e.g. 2/8)", text))
        << text;
  EXPECT_THROW(shard_spec(3, 2), std::invalid_argument);
}

TEST(WorkItem, CanonicalTextIsSortedJson) {
  // Pinned: a change here moves every item to another shard (and splits a running cluster job).
  const work_item item{"relu", problem_size::medium, "float32", "abc"};
  EXPECT_EQ(item.canonical_text(), R"({"candidate_sha256":"abc","dtype":"float32","size":"medium","task":"relu"})");
  task_info task;
  task.name = "relu";
  task.output_dtype = "float32";
  task.sha256 = "own";
  task.views["float32"] = {tolerance{}, {{"x", "float32"}}, "float32", std::nullopt};
  task.views["bfloat16"] = {tolerance{}, {{"x", "bfloat16"}}, "bfloat16", std::nullopt};
  const auto own = work_item::of(task, problem_size::medium, float_dtype::float32, "abc");
  EXPECT_EQ(own.canonical_text(), item.canonical_text());
  // At bfloat16 a float task is another item; a task with no float input is the same one (its
  // views keep the output's type: task/dtypes.py).
  EXPECT_EQ(work_item::of(task, problem_size::medium, float_dtype::bfloat16, "abc").dtype, "bfloat16");
  task.views["float32"] = {tolerance{}, {{"x", "int32"}}, "int32", std::nullopt};
  task.views["bfloat16"] = {tolerance{}, {{"x", "int32"}}, "int32", std::nullopt};
  EXPECT_EQ(work_item::of(task, problem_size::medium, float_dtype::bfloat16, "abc").canonical_text(),
            work_item::of(task, problem_size::medium, float_dtype::float32, "abc").canonical_text());
}

TEST(ShardSpec, EveryItemFallsInExactlyOneShard) {
  const auto items = all_items();
  for (int count = 1; count <= 7; ++count) {
    std::vector<int> per_shard(count, 0);
    for (const auto& item : items) {
      int holders = 0;
      for (int index = 1; index <= count; ++index)
        if (shard_spec(index, count).contains(item)) ++holders, ++per_shard[index - 1];
      ASSERT_EQ(holders, 1) << item.canonical_text() << " with " << count << " shards";
    }
    // FNV-1a spreads the suite's keys: no shard gets less than half or more than twice its due.
    const double due = static_cast<double>(items.size()) / count;
    for (int index = 1; index <= count; ++index) {
      EXPECT_GE(per_shard[index - 1], due / 2) << index << "/" << count;
      EXPECT_LE(per_shard[index - 1], due * 2) << index << "/" << count;
    }
  }
}

TEST(ShardSpec, AnItemsShardDependsOnEveryFieldOfIt) {
  // Over the suite, changing one field must move some items: each field is part of the key.
  const auto items = all_items();
  const shard_spec first(1, 4);
  const auto moved = [&](auto change) {
    return std::count_if(items.begin(), items.end(), [&](work_item item) {
      const bool before = first.contains(item);
      change(item);
      return before != first.contains(item);
    });
  };
  EXPECT_GT(moved([](work_item& i) { i.task += "_v2"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.dtype = "bfloat16"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.candidate_sha256 += "0"; }), 0);
  EXPECT_GT(moved([](work_item& i) { i.size = problem_size::large; }), 0);
}

std::vector<task_info> tasks_named(const std::vector<std::string>& names) {
  std::vector<task_info> tasks;
  for (const auto& name : names) {
    task_info t;
    t.name = name;
    t.output_dtype = "float32";
    t.views["float32"] = {tolerance{}, {}, "float32", std::nullopt};
    t.sha256 = "sha-of-" + name;
    tasks.push_back(t);
  }
  return tasks;
}

std::map<std::string, int> shard_of_each(const std::vector<task_info>& tasks, int count, const std::string& sha = "") {
  std::map<std::string, int> out;
  for (int index = 1; index <= count; ++index)
    for (const auto& t : shard_share(tasks, shard_spec(index, count), problem_size::small, float_dtype::float32, sha))
      out[t.name] = index;
  return out;
}

TEST(ShardShare, AddingOrRemovingATaskMovesNoOther) {
  auto names = k_names;
  const auto before = shard_of_each(tasks_named(names), 5);
  ASSERT_EQ(before.size(), names.size());
  names.insert(names.begin() + 10, "brand_new_task");
  names.erase(std::find(names.begin(), names.end(), "softmax"));
  auto after = shard_of_each(tasks_named(names), 5);
  EXPECT_TRUE(after.contains("brand_new_task"));
  after.erase("brand_new_task");
  auto expected = before;
  expected.erase("softmax");
  EXPECT_EQ(after, expected);
}

TEST(ShardShare, KeepsTheSelectionOrder) {
  const auto tasks = tasks_named(k_names);
  for (int index = 1; index <= 3; ++index) {
    const auto share = shard_share(tasks, shard_spec(index, 3), problem_size::small);
    std::vector<std::string> got, want;
    for (const auto& t : share) got.push_back(t.name);
    for (const auto& t : tasks)
      if (std::find(got.begin(), got.end(), t.name) != got.end()) want.push_back(t.name);
    EXPECT_EQ(got, want);
  }
}

TEST(ShardShare, AUserCandidatesHashReplacesEachTasksOwn) {
  const auto tasks = tasks_named(k_names);
  const auto own = shard_of_each(tasks, 4);
  const auto user = shard_of_each(tasks, 4, "user-candidate-sha");
  EXPECT_EQ(user.size(), tasks.size());
  EXPECT_NE(own, user);
  for (const auto& t : tasks)
    EXPECT_EQ(user.at(t.name) == 2,
              shard_spec(2, 4).contains({t.name, problem_size::small, "float32", "user-candidate-sha"}));
}

}  // namespace
}  // namespace pallasbench
