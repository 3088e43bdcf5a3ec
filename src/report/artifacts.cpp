#include "pallasbench/report/artifacts.hpp"

#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench {
namespace {

using nlohmann::json;

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' ? ' ' : c);
  }
  return out;
}

std::string shapes(const json& outputs) {
  std::vector<std::string> parts;
  for (const auto& o : outputs)
    parts.push_back(
        fmt::format("{}[{}]", o.value("dtype", "?"), fmt::join(o.value("shape", std::vector<long>{}), ",")));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string node_line(const json& node) {
  const std::string primitive = node.value("primitive", "?");
  // DOT's own line break (\n) joins the escaped parts.
  const std::string label = escape(primitive) + "\\n" + escape(shapes(node.value("outputs", json::array())));
  const std::string shape = primitive == "input" || primitive == "output" ? "ellipse"
                            : primitive == "pallas_call"                  ? "box3d"
                                                                          : "box";
  return fmt::format("  n{} [label=\"{}\", shape={}{}];\n", node.value("id", 0), label, shape,
                     node.value("inside_pallas", false) ? ", style=filled, fillcolor=\"#e8f0ff\"" : "");
}

void emit(std::string& out, const std::map<long, std::vector<const json*>>& children, long parent) {
  const auto it = children.find(parent);
  if (it == children.end()) return;
  for (const json* node : it->second) {
    const long id = node->value("id", 0L);
    out += node_line(*node);
    if (!children.contains(id)) continue;
    const json& n = *node;
    std::string label = n.value("primitive", "?");
    if (n.contains("grid"))
      label += fmt::format(" body, grid ({}), blocks {}", fmt::join(n["grid"].get<std::vector<long>>(), ", "),
                           n.value("block_shapes", json::array()).dump());
    out += fmt::format("  subgraph cluster_{} {{\n  label=\"{}\";\n", id, escape(label));
    emit(out, children, id);
    out += "  }\n";
  }
}

}  // namespace

std::string jaxpr_dot(const json& dag, const std::string& title) {
  std::map<long, std::vector<const json*>> children;  // parent id (-1: top level) -> nodes
  static const json none = json::array();
  const json& nodes = dag.contains("nodes") ? dag.at("nodes") : none;  // by reference: we keep pointers
  for (const auto& node : nodes) {
    const long parent = node.contains("parent") && node["parent"].is_number() ? node["parent"].get<long>() : -1;
    children[parent].push_back(&node);
  }
  std::string out = fmt::format("digraph jaxpr {{\n  label=\"{}\";\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n",
                                escape(title));
  emit(out, children, -1);
  for (const auto& edge : dag.value("edges", json::array()))
    out += fmt::format("  n{} -> n{};\n", edge.value("from", 0), edge.value("to", 0));
  out += "}\n";
  return out;
}

}  // namespace pallasbench
