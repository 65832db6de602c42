// The tuning file: what osmp-tune found best on one machine with one
// placement of ranks, and what the runtime loads when a team is created.
//
// A JSON document (written by to_json, pretty and in a fixed key order):
//
//   { "format": "osmp-tuning", "version": 1,
//     "fingerprint": "3f2a...", "machine": "...", "processes": 8,
//     "created": "2025-01-31T12:00:00Z", "osmp_version": "0.1.0",
//     "calibration": { "source": ..., "gamma_us_per_kib": ..., "contention": ...,
//                      "levels": [ {"level", "alpha_us", "beta_us_per_kib"}, ... ] },
//     "settings": { "OSMP_VH": "Package:7", ... },
//     "ops": { "reduce": { "OSMP_BASE_CASE": "knomial:4" }, ... },
//     "measurements": [ {"op", "bytes", "candidate", "us", "predicted_us"?}, ... ] }
//
// One file holds one fingerprint (one topology + placement); keep one file
// per placement, or let osmp-tune overwrite it. Parsing is strict: an unknown
// field, operation or setting, a value of the wrong type, a negative or
// non-finite cost is an error naming the file and the field. Nothing here
// throws; nlohmann/json stays inside tuning_file.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "topology/cpuset.hpp"
#include "topology/machine_tree.hpp"
#include "tuning/costs.hpp"

namespace osmp {

inline constexpr std::string_view kTuningFormat = "osmp-tuning";
inline constexpr int kTuningVersion = 1;

// Settings are kept as the OSMP_* environment variables spell them, so one
// parser serves the environment and the file: "OSMP_VH" -> "Package:7".
// Values are not checked here; the runtime parses them as it parses the
// environment.
using Settings = std::map<std::string, std::string>;

// Names allowed in TuningFile::settings: OSMP_VH, OSMP_BASE_CASE,
// OSMP_FLAT_MAX, OSMP_KNOMIAL_RADIX, OSMP_SYMMETRIC_MAX, OSMP_CMA_MIN,
// OSMP_CMA_MAX.
std::span<const std::string_view> team_setting_names();
// Names allowed per operation: OSMP_VH, OSMP_BASE_CASE, OSMP_FLAT_MAX,
// OSMP_KNOMIAL_RADIX.
std::span<const std::string_view> op_setting_names();
// Operation names allowed as keys of TuningFile::ops: to_string(OpKind).
std::span<const std::string_view> tuning_op_names();

// One timed candidate of the sweep.
struct Measurement {
  std::string op;            // "reduce", or whatever else the tuner timed
  std::uint64_t bytes = 0;   // message size per rank
  std::string candidate;     // what was tried, e.g. "OSMP_VH=Package:7 OSMP_BASE_CASE=flat"
  double us = 0;             // measured time, microseconds
  double predicted_us = -1;  // the model's prediction; < 0: none (left out of the file)

  friend bool operator==(const Measurement&, const Measurement&) = default;
};

struct TuningFile {
  int version = kTuningVersion;
  std::string fingerprint;  // fingerprint() of the topology and placement it was tuned on
  std::string machine;      // human description (topology, process count, placement)
  int processes = 0;        // >= 1 in a valid file
  std::string created;      // UTC ISO-8601
  std::string osmp_version;
  Calibration calibration;                // may be empty (no levels)
  Settings settings;                      // team-wide, names from team_setting_names()
  std::map<std::string, Settings> ops;    // per operation, names from op_setting_names()
  std::vector<Measurement> measurements;  // the sweep, for plots and prediction vs measurement
};

// The file's text: pretty-printed, keys in the order shown above, doubles
// written so that they parse back bit for bit.
std::string to_json(const TuningFile& file);

// Parses and validates a tuning file. `origin` (the path) starts every error:
// "tuning file /x/tuning.json: settings.OSMP_FOO: unknown setting (...)".
// Errc::unsupported for a version other than kTuningVersion, else
// Errc::invalid_argument.
Result<TuningFile> parse_tuning(std::string_view json, std::string_view origin);

// Writes `file` to `path` atomically (path.tmp.<pid>, then rename), creating
// missing parent directories (mode 0755). Refuses a file that would not parse
// back (e.g. a non-finite cost or a misspelt setting).
Status save_tuning(const TuningFile& file, const std::string& path);

// Reads and parses `path`. Errc::not_found when it does not exist;
// Errc::system when it cannot be read.
Result<TuningFile> load_tuning(const std::string& path);

// A stable 16-hex-digit FNV-1a-64 hash of the machine (every node's level,
// logical index and cpuset, in node order) and of every rank's place (its
// cpuset, in rank order). Same machine and placement, same fingerprint, in
// any process and run; another process count, binding or machine, another one.
std::string fingerprint(const MachineTree& machine, std::span<const CpuSet> places);

// Where the runtime looks for the tuning file:
//   $OSMP_TUNING_FILE when set; set but empty disables tuning: "" is returned;
//   else $XDG_CONFIG_HOME/osmp/tuning.json (when set to an absolute path);
//   else $HOME/.config/osmp/tuning.json;
//   else "" (no place to look).
std::string default_tuning_path();

// What the runtime found at team creation.
struct TuningLookup {
  enum class Outcome {
    disabled,  // no path (OSMP_TUNING_FILE set empty, or no HOME)
    missing,   // no file at the path: defaults apply
    mismatch,  // a valid file, made for another topology or placement: ignored
    loaded,    // `file` applies to this team
  };
  Outcome outcome = Outcome::disabled;
  std::optional<TuningFile> file;  // set exactly when loaded
  std::string note;                // one line for the log, naming the path
};

// The runtime's entry point: loads `path` and checks it was made for
// `fingerprint`. A missing file or another fingerprint is not an error (see
// TuningLookup); an unreadable or corrupt file is, naming the path and field:
// the runtime logs it and goes on with defaults.
Result<TuningLookup> load_for(const std::string& path, const std::string& fingerprint);

}  // namespace osmp
