#include "tuning/tuning_file.hpp"

#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "collectives/types.hpp"

namespace osmp {
namespace {

// ordered_json keeps keys in insertion order: the file reads top-down in the
// order of TuningFile, and to_json is stable.
using Json = nlohmann::ordered_json;

constexpr std::string_view kTeamSettings[] = {
    "OSMP_VH",      "OSMP_BASE_CASE", "OSMP_FLAT_MAX", "OSMP_KNOMIAL_RADIX",     "OSMP_SYMMETRIC_MAX",
    "OSMP_CMA_MIN", "OSMP_CMA_MAX",   "OSMP_CMA",      "OSMP_SYMMETRIC_SLOT_MAX"};
constexpr std::string_view kOpSettings[] = {"OSMP_VH", "OSMP_BASE_CASE", "OSMP_FLAT_MAX", "OSMP_KNOMIAL_RADIX"};

bool contains(std::span<const std::string_view> names, std::string_view name) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

std::string list(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += cat(out.empty() ? "" : ", ", n);
  return out;
}

// ---------------------------------------------------------------- writing

Json settings_json(const Settings& settings) {
  Json j = Json::object();
  for (const auto& [name, value] : settings) j[name] = value;
  return j;
}

Json calibration_json(const Calibration& c) {
  Json levels = Json::array();
  for (const LevelCost& l : c.levels)
    levels.push_back({{"level", l.level}, {"alpha_us", l.alpha_us}, {"beta_us_per_kib", l.beta_us_per_kib}});
  return {{"source", c.source},           {"gamma_us_per_kib", c.gamma_us_per_kib}, {"contention", c.contention},
          {"cma_call_us", c.cma_call_us}, {"cma_us_per_kib", c.cma_us_per_kib},     {"levels", std::move(levels)}};
}

Json measurement_json(const Measurement& m) {
  Json j = {{"op", m.op}, {"bytes", m.bytes}, {"candidate", m.candidate}, {"us", m.us}};
  if (m.predicted_us >= 0) j["predicted_us"] = m.predicted_us;
  return j;
}

// ---------------------------------------------------------------- reading
// Errors name the field by its path in the document: calibration.levels[2].alpha_us.

Status field_error(std::string_view field, std::string_view what) {
  return Status(Errc::invalid_argument, cat(field, ": ", what));
}

std::string expected(std::string_view what, const Json& v) {
  std::string got =
      v.is_structured() ? std::string(v.type_name()) : v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (got.size() > 40) got = got.substr(0, 37) + "...";
  return cat("expected ", what, ", got ", got);
}

Result<std::string> as_string(const Json& v, std::string_view field) {
  if (!v.is_string()) return field_error(field, expected("a string", v));
  return v.get<std::string>();
}

Result<long long> as_integer(const Json& v, std::string_view field, long long lo, long long hi) {
  if (!v.is_number_integer()) return field_error(field, expected("an integer", v));
  bool huge = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(LLONG_MAX);
  auto x = static_cast<long long>(v.get<std::int64_t>());
  if (huge || x < lo || x > hi) return field_error(field, cat(v.dump(), " is outside [", lo, ", ", hi, "]"));
  return x;
}

Result<std::uint64_t> as_size(const Json& v, std::string_view field) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  return field_error(field, expected("a non-negative integer", v));
}

// A cost or a time: finite and >= 0.
Result<double> as_cost(const Json& v, std::string_view field) {
  if (!v.is_number()) return field_error(field, expected("a number", v));
  double d = v.get<double>();
  if (!std::isfinite(d)) return field_error(field, cat(v.dump(), " is not finite"));
  if (d < 0) return field_error(field, cat(v.dump(), " is negative (costs and times are >= 0)"));
  return d;
}

// The members of one JSON object, read by name.
class Fields {
 public:
  static Result<Fields> of(const Json& j, std::string path) {
    if (!j.is_object()) return field_error(path.empty() ? "top level" : path, expected("an object", j));
    return Fields(j, std::move(path));
  }
  std::string name(std::string_view key) const { return path_.empty() ? std::string(key) : cat(path_, ".", key); }
  bool has(std::string_view key) const { return j_->contains(std::string(key)); }
  Result<const Json*> get(std::string_view key) const {
    auto it = j_->find(std::string(key));
    if (it == j_->end()) return field_error(name(key), "missing");
    return &*it;
  }
  Result<std::string> string(std::string_view key) const {
    OSMP_ASSIGN_OR_RETURN(const Json* v, get(key));
    return as_string(*v, name(key));
  }
  Result<long long> integer(std::string_view key, long long lo, long long hi) const {
    OSMP_ASSIGN_OR_RETURN(const Json* v, get(key));
    return as_integer(*v, name(key), lo, hi);
  }
  Result<double> cost(std::string_view key) const {
    OSMP_ASSIGN_OR_RETURN(const Json* v, get(key));
    return as_cost(*v, name(key));
  }
  Status only(std::initializer_list<std::string_view> known) const {
    for (auto it = j_->begin(); it != j_->end(); ++it)
      if (!contains(known, it.key()))
        return field_error(name(it.key()), cat("unknown field (expected: ", list(known), ")"));
    return {};
  }

 private:
  Fields(const Json& j, std::string path) : j_(&j), path_(std::move(path)) {}
  const Json* j_;
  std::string path_;
};

Status check_header(const Fields& top) {
  OSMP_ASSIGN_OR_RETURN(std::string format, top.string("format"));
  if (format != kTuningFormat)
    return field_error("format", cat("\"", format, "\" is not \"", kTuningFormat, "\": not an osmp tuning file"));
  OSMP_ASSIGN_OR_RETURN(long long version, top.integer("version", LLONG_MIN, LLONG_MAX));
  if (version != kTuningVersion)
    return Status(Errc::unsupported,
                  cat("version: ", version, " is not supported (this osmp reads version ", kTuningVersion, ")"));
  return {};
}

Result<LevelCost> read_level(const Json& j, const std::string& path) {
  OSMP_ASSIGN_OR_RETURN(Fields f, Fields::of(j, path));
  OSMP_RETURN_IF_ERROR(f.only({"level", "alpha_us", "beta_us_per_kib"}));
  LevelCost l;
  OSMP_ASSIGN_OR_RETURN(l.level, f.string("level"));
  if (l.level.empty()) return field_error(f.name("level"), "empty");
  OSMP_ASSIGN_OR_RETURN(l.alpha_us, f.cost("alpha_us"));
  OSMP_ASSIGN_OR_RETURN(l.beta_us_per_kib, f.cost("beta_us_per_kib"));
  return l;
}

Result<Calibration> read_calibration(const Json& j) {
  OSMP_ASSIGN_OR_RETURN(Fields f, Fields::of(j, "calibration"));
  OSMP_RETURN_IF_ERROR(f.only({"source", "gamma_us_per_kib", "contention", "cma_call_us", "cma_us_per_kib", "levels"}));
  Calibration c;
  OSMP_ASSIGN_OR_RETURN(c.source, f.string("source"));
  OSMP_ASSIGN_OR_RETURN(c.gamma_us_per_kib, f.cost("gamma_us_per_kib"));
  OSMP_ASSIGN_OR_RETURN(c.contention, f.cost("contention"));
  // CMA's figures: absent from files written before osmp-tune measured
  // them, whose readers keep the typical ones (costs.hpp).
  if (f.has("cma_call_us")) {
    OSMP_ASSIGN_OR_RETURN(c.cma_call_us, f.cost("cma_call_us"));
  }
  if (f.has("cma_us_per_kib")) {
    OSMP_ASSIGN_OR_RETURN(c.cma_us_per_kib, f.cost("cma_us_per_kib"));
  }
  OSMP_ASSIGN_OR_RETURN(const Json* levels, f.get("levels"));
  if (!levels->is_array()) return field_error(f.name("levels"), expected("an array", *levels));
  for (std::size_t i = 0; i < levels->size(); ++i) {
    OSMP_ASSIGN_OR_RETURN(LevelCost l, read_level((*levels)[i], cat(f.name("levels"), "[", i, "]")));
    c.levels.push_back(std::move(l));
  }
  return c;
}

// `allowed` names what may be set here; a team-wide name under an operation
// gets its own message.
Result<Settings> read_settings(const Json& j, const std::string& path, std::span<const std::string_view> allowed) {
  if (!j.is_object()) return field_error(path, expected("an object", j));
  Settings out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string field = cat(path, ".", it.key());
    if (!contains(allowed, it.key())) {
      bool team_only = contains(kTeamSettings, it.key());
      return field_error(field, cat(team_only ? "team-wide only, not settable per operation" : "unknown setting",
                                    " (allowed here: ", list(allowed), ")"));
    }
    OSMP_ASSIGN_OR_RETURN(out[it.key()], as_string(it.value(), field));
  }
  return out;
}

Result<std::map<std::string, Settings>> read_ops(const Json& j) {
  if (!j.is_object()) return field_error("ops", expected("an object", j));
  std::map<std::string, Settings> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string field = cat("ops.", it.key());
    if (!contains(tuning_op_names(), it.key()))
      return field_error(field, cat("unknown operation (allowed: ", list(tuning_op_names()), ")"));
    OSMP_ASSIGN_OR_RETURN(out[it.key()], read_settings(it.value(), field, kOpSettings));
  }
  return out;
}

Result<Measurement> read_measurement(const Json& j, const std::string& path) {
  OSMP_ASSIGN_OR_RETURN(Fields f, Fields::of(j, path));
  OSMP_RETURN_IF_ERROR(f.only({"op", "bytes", "candidate", "us", "predicted_us"}));
  Measurement m;
  OSMP_ASSIGN_OR_RETURN(m.op, f.string("op"));
  if (m.op.empty()) return field_error(f.name("op"), "empty");
  OSMP_ASSIGN_OR_RETURN(const Json* bytes, f.get("bytes"));
  OSMP_ASSIGN_OR_RETURN(m.bytes, as_size(*bytes, f.name("bytes")));
  OSMP_ASSIGN_OR_RETURN(m.candidate, f.string("candidate"));
  OSMP_ASSIGN_OR_RETURN(m.us, f.cost("us"));
  if (f.has("predicted_us")) {
    OSMP_ASSIGN_OR_RETURN(m.predicted_us, f.cost("predicted_us"));
  }
  return m;
}

Result<std::vector<Measurement>> read_measurements(const Json& j) {
  if (!j.is_array()) return field_error("measurements", expected("an array", j));
  std::vector<Measurement> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    OSMP_ASSIGN_OR_RETURN(Measurement m, read_measurement(j[i], cat("measurements[", i, "]")));
    out.push_back(std::move(m));
  }
  return out;
}

bool is_fingerprint(std::string_view s) {
  if (s.size() != 16) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Result<TuningFile> read_document(const Json& doc) {
  OSMP_ASSIGN_OR_RETURN(Fields top, Fields::of(doc, ""));
  OSMP_RETURN_IF_ERROR(check_header(top));
  OSMP_RETURN_IF_ERROR(top.only({"format", "version", "fingerprint", "machine", "processes", "created", "osmp_version",
                                 "calibration", "settings", "ops", "measurements"}));
  TuningFile f;
  OSMP_ASSIGN_OR_RETURN(f.fingerprint, top.string("fingerprint"));
  if (!is_fingerprint(f.fingerprint))
    return field_error("fingerprint", cat("\"", f.fingerprint, "\" is not 16 lower-case hex digits"));
  OSMP_ASSIGN_OR_RETURN(f.machine, top.string("machine"));
  OSMP_ASSIGN_OR_RETURN(long long processes, top.integer("processes", 1, INT_MAX));
  f.processes = static_cast<int>(processes);
  OSMP_ASSIGN_OR_RETURN(f.created, top.string("created"));
  OSMP_ASSIGN_OR_RETURN(f.osmp_version, top.string("osmp_version"));
  OSMP_ASSIGN_OR_RETURN(const Json* calibration, top.get("calibration"));
  OSMP_ASSIGN_OR_RETURN(f.calibration, read_calibration(*calibration));
  OSMP_ASSIGN_OR_RETURN(const Json* settings, top.get("settings"));
  OSMP_ASSIGN_OR_RETURN(f.settings, read_settings(*settings, "settings", kTeamSettings));
  OSMP_ASSIGN_OR_RETURN(const Json* ops, top.get("ops"));
  OSMP_ASSIGN_OR_RETURN(f.ops, read_ops(*ops));
  OSMP_ASSIGN_OR_RETURN(const Json* measurements, top.get("measurements"));
  OSMP_ASSIGN_OR_RETURN(f.measurements, read_measurements(*measurements));
  return f;
}

// An nlohmann message without its "[json.exception.parse_error.101] " tag.
std::string_view plain(const Json::exception& e) {
  std::string_view what = e.what();
  if (auto end = what.find("] "); what.starts_with("[json.exception") && end != what.npos) what.remove_prefix(end + 2);
  return what;
}

// nlohmann keeps one of two equal keys silently; a tuning file with two
// OSMP_VH is an error. The parser callback sees every key of every object.
Result<Json> parse_json(std::string_view text) {
  std::vector<std::set<std::string>> open;  // keys seen so far in each open object
  std::string duplicate;
  Json::parser_callback_t track = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open.emplace_back();
    if (event == Json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == Json::parse_event_t::key && !open.empty() && parsed.is_string() &&
        !open.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  try {
    Json doc = Json::parse(text.data(), text.data() + text.size(), track);
    if (!duplicate.empty()) return Status(Errc::invalid_argument, cat(duplicate, ": appears twice in one object"));
    return doc;
  } catch (const Json::parse_error& e) {
    return Status(Errc::invalid_argument, cat("not valid JSON at byte ", e.byte, ": ", plain(e)));
  } catch (const Json::exception& e) {  // out_of_range.406: a number too large for a double
    return Status(Errc::invalid_argument, cat("not valid JSON: ", plain(e)));
  }
}

// The whole check without the origin, for parse_tuning and save_tuning.
Result<TuningFile> parse_unnamed(std::string_view text) {
  try {
    OSMP_ASSIGN_OR_RETURN(Json doc, parse_json(text));
    return read_document(doc);
  } catch (const Json::exception& e) {  // a case the checks above missed: still no exception out
    return Status(Errc::invalid_argument, cat("unexpected JSON error: ", e.what()));
  }
}

}  // namespace

std::span<const std::string_view> team_setting_names() { return kTeamSettings; }
std::span<const std::string_view> op_setting_names() { return kOpSettings; }

std::span<const std::string_view> tuning_op_names() {
  static const auto names = [] {
    std::array<std::string_view, kOpKindCount> out{};
    for (OpKind k : kOpKinds) out[static_cast<std::size_t>(op_index(k))] = to_string(k);
    return out;
  }();
  return names;
}

std::string to_json(const TuningFile& file) {
  Json j;
  j["format"] = std::string(kTuningFormat);
  j["version"] = file.version;
  j["fingerprint"] = file.fingerprint;
  j["machine"] = file.machine;
  j["processes"] = file.processes;
  j["created"] = file.created;
  j["osmp_version"] = file.osmp_version;
  j["calibration"] = calibration_json(file.calibration);
  j["settings"] = settings_json(file.settings);
  j["ops"] = Json::object();
  for (const auto& [op, settings] : file.ops) j["ops"][op] = settings_json(settings);
  j["measurements"] = Json::array();
  for (const Measurement& m : file.measurements) j["measurements"].push_back(measurement_json(m));
  // replace: a string that is not UTF-8 must not throw; it is written with U+FFFD.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<TuningFile> parse_tuning(std::string_view json, std::string_view origin) {
  Result<TuningFile> file = parse_unnamed(json);
  if (file.ok()) return file;
  Status st = file.status();
  return st.prefix(cat("tuning file ", origin));
}

}  // namespace osmp
