#include "pallasbench/report/artifacts.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(JaxprDot, NestsPallasBodiesInLabelledClusters) {
  const auto dag = nlohmann::json::parse(R"({
    "nodes": [
      {"id": 0, "primitive": "input", "outputs": [{"shape": [256, 256], "dtype": "float32"}], "parent": null},
      {"id": 1, "primitive": "pallas_call", "outputs": [{"shape": [256, 256], "dtype": "float32"}], "parent": null,
       "grid": [8], "block_shapes": [[32, 256], [32, 256]]},
      {"id": 2, "primitive": "get", "outputs": [{"shape": [32, 256], "dtype": "float32"}], "parent": 1,
       "inside_pallas": true},
      {"id": 3, "primitive": "exp", "outputs": [{"shape": [32, 256], "dtype": "float32"}], "parent": 1,
       "inside_pallas": true},
      {"id": 4, "primitive": "output", "outputs": [{"shape": [256, 256], "dtype": "float32"}], "parent": null}],
    "edges": [{"from": 0, "to": 1}, {"from": 2, "to": 3}, {"from": 1, "to": 4}]})");
  const auto dot = jaxpr_dot(dag, "softmax \"small\"");
  EXPECT_EQ(dot.rfind("digraph jaxpr {", 0), 0u);
  EXPECT_NE(dot.find("label=\"softmax \\\"small\\\"\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("subgraph cluster_1 {"), std::string::npos) << dot;
  EXPECT_NE(dot.find("pallas_call body, grid (8), blocks [[32,256],[32,256]]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n3 [label=\"exp\\nfloat32[32,256]\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n3;"), std::string::npos);
  // The body's nodes sit inside the cluster, the kernel's output outside it.
  EXPECT_LT(dot.find("subgraph cluster_1"), dot.find("n3 [label"));
  EXPECT_LT(dot.find("n3 [label"), dot.find("  }\n"));
  EXPECT_GT(dot.find("n4 [label"), dot.find("  }\n"));
}

}  // namespace
}  // namespace pallasbench
