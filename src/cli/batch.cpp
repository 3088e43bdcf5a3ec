#include "detail/batch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pallasbench/cli/commands.hpp"

namespace pallasbench::detail {
namespace {

using nlohmann::json;

// A request's file name: its line and id, with only the characters a file name may safely hold.
std::string file_name(std::size_t line, const std::string& id) {
  std::string safe;
  for (const char c : id.substr(0, 64))
    safe.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_');
  return fmt::format("request{}_{}.py", line, safe);
}

std::string id_of(const json& value, const std::string& where) {
  if (value.is_string() && !value.get<std::string>().empty()) return value.get<std::string>();
  if (value.is_number_integer()) return value.dump();
  throw usage_error(fmt::format("{}: \"id\" must be a non-empty string or an integer", where));
}

std::string string_field(const json& request, const char* name, const std::string& where) {
  const auto it = request.find(name);
  if (it == request.end() || !it->is_string() || it->get<std::string>().empty())
    throw usage_error(fmt::format("{}: \"{}\" must be a non-empty string", where, name));
  return it->get<std::string>();
}

// An optional field naming one of an enum's values ("size", "dtype"); none when absent.
template <class Enum>
std::optional<Enum> enum_field(const json& request, const char* name, std::string_view choices,
                               const std::string& where) {
  if (!request.contains(name)) return std::nullopt;
  const auto text = string_field(request, name, where);
  try {
    return parse_enum<Enum>(text);
  } catch (const std::invalid_argument&) {
    throw usage_error(fmt::format("{}: {} \"{}\" is not {}", where, name, text, choices));
  }
}

batch_request parse_request(const json& request, const std::string& where, std::size_t line,
                            const std::filesystem::path& base, const batch_sources& sources) {
  if (!request.is_object()) throw usage_error(fmt::format("{}: a request is a JSON object", where));
  for (const auto& [key, value] : request.items())
    if (key != "id" && key != "task" && key != "size" && key != "dtype" && key != "source" && key != "path")
      throw usage_error(fmt::format("{}: unknown field \"{}\" (id, task, size, dtype, source or path)", where, key));
  batch_request r;
  r.line = line;
  r.id = id_of(request.value("id", json(nullptr)), where);
  r.task = string_field(request, "task", where);
  r.size = enum_field<problem_size>(request, "size", "small, medium or large", where);
  r.dtype = enum_field<float_dtype>(request, "dtype", "float32, bfloat16 or float16", where);
  const bool has_source = request.contains("source"), has_path = request.contains("path");
  if (has_source == has_path) throw usage_error(fmt::format("{}: give exactly one of \"source\" and \"path\"", where));
  if (has_source) {
    if (!request["source"].is_string()) throw usage_error(fmt::format("{}: \"source\" must be a string", where));
    r.path = sources.write(file_name(line, r.id), request["source"].get<std::string>()).string();
    r.inline_source = true;
  } else {
    auto path = std::filesystem::path(string_field(request, "path", where));
    if (path.is_relative()) path = base / path;
    if (!std::filesystem::is_regular_file(path))
      throw usage_error(fmt::format("{}: candidate file not found: {}", where, path.string()));
    r.path = std::filesystem::absolute(path).lexically_normal().string();
  }
  return r;
}

}  // namespace

batch_sources::batch_sources() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / "pallasbench-batch-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error(fmt::format("cannot make a folder for the batch's sources: {}", std::strerror(errno)));
  m_dir = pattern;
}

batch_sources::~batch_sources() {
  std::error_code ignored;
  std::filesystem::remove_all(m_dir, ignored);
}

std::filesystem::path batch_sources::write(const std::string& name, const std::string& source) const {
  const auto path = m_dir / name;
  std::ofstream out(path, std::ios::binary);
  out << source;
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
  return path;
}

batch read_batch(const std::string& file) {
  std::ifstream in_file;
  const bool from_stdin = file == "-";
  if (!from_stdin) {
    in_file.open(file);
    if (!in_file) throw usage_error(fmt::format("--batch {}: cannot read the file", file));
  }
  std::istream& in = from_stdin ? std::cin : in_file;
  const auto base = from_stdin ? std::filesystem::current_path() : std::filesystem::absolute(file).parent_path();
  batch b;
  b.sources = std::make_unique<batch_sources>();
  std::set<std::string> ids;
  std::size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto where = fmt::format("{}:{}", from_stdin ? "<stdin>" : file, line_number);
    const auto request = json::parse(line, nullptr, false);
    if (request.is_discarded()) throw usage_error(fmt::format("{}: not a JSON line", where));
    auto r = parse_request(request, where, line_number, base, *b.sources);
    if (!ids.insert(r.id).second) throw usage_error(fmt::format("{}: id \"{}\" is given twice", where, r.id));
    b.requests.push_back(std::move(r));
  }
  if (b.requests.empty()) throw usage_error(fmt::format("--batch {}: no request in it", file));
  return b;
}

}  // namespace pallasbench::detail
