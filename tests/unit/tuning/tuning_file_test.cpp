#include "tuning/tuning_file.hpp"

#include "collectives/config.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <set>

#include "collectives/types.hpp"
#include "support/machines.hpp"

namespace osmp {
namespace {

namespace fs = std::filesystem;

// Every field set, with doubles that do not print exactly in few digits.
TuningFile sample() {
  TuningFile f;
  f.fingerprint = "0123456789abcdef";
  f.machine = "synthetic 'Package:2 Core:4' (8 ranks, map-by core, bind-to core) \xc3\xa9";
  f.processes = 8;
  f.created = "2025-01-31T12:34:56Z";
  f.osmp_version = "0.1.0";
  f.calibration.source = "measured by osmp-tune";
  f.calibration.gamma_us_per_kib = 1.0 / 3.0;
  f.calibration.contention = 0.1 + 0.2;
  f.calibration.cma_call_us = 1.0 / 7.0;
  f.calibration.cma_us_per_kib = 0.0625;
  f.calibration.levels = {
      {"Machine", 0.25, 0.1}, {"Package", 5e-324, 1.7976931348623157e308}, {"Core", 0.0, 123456.789e-10}};
  f.settings = {{"OSMP_VH", "Package:7"}, {"OSMP_FLAT_MAX", "8"}, {"OSMP_CMA_MIN", "64K"}};
  f.ops = {{"reduce", {{"OSMP_BASE_CASE", "knomial:4"}, {"OSMP_KNOMIAL_RADIX", "4"}}}, {"bcast", {{"OSMP_VH", ""}}}};
  f.measurements = {{"reduce", 4096, "OSMP_VH=Package:7", 12.5, 11.75},
                    {"bcast", std::numeric_limits<std::uint64_t>::max(), "flat", 0.1, -1}};
  return f;
}

bool same_double(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

void expect_same(const TuningFile& a, const TuningFile& b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.machine, b.machine);
  EXPECT_EQ(a.processes, b.processes);
  EXPECT_EQ(a.created, b.created);
  EXPECT_EQ(a.osmp_version, b.osmp_version);
  EXPECT_EQ(a.calibration.source, b.calibration.source);
  EXPECT_TRUE(same_double(a.calibration.gamma_us_per_kib, b.calibration.gamma_us_per_kib));
  EXPECT_TRUE(same_double(a.calibration.contention, b.calibration.contention));
  EXPECT_TRUE(same_double(a.calibration.cma_call_us, b.calibration.cma_call_us));
  EXPECT_TRUE(same_double(a.calibration.cma_us_per_kib, b.calibration.cma_us_per_kib));
  ASSERT_EQ(a.calibration.levels.size(), b.calibration.levels.size());
  for (std::size_t i = 0; i < a.calibration.levels.size(); ++i) {
    const LevelCost &x = a.calibration.levels[i], &y = b.calibration.levels[i];
    EXPECT_EQ(x.level, y.level);
    EXPECT_TRUE(same_double(x.alpha_us, y.alpha_us)) << x.alpha_us << " vs " << y.alpha_us;
    EXPECT_TRUE(same_double(x.beta_us_per_kib, y.beta_us_per_kib)) << x.beta_us_per_kib << " vs " << y.beta_us_per_kib;
  }
  EXPECT_EQ(a.settings, b.settings);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.measurements, b.measurements);
}

// Replaces the one occurrence of `from` (the test fails if there is not exactly one).
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' in the sample";
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "'" << from << "' occurs twice";
  return text.replace(at, from.size(), to);
}

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "osmp-tuning-test-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
};

// Sets (or, with nullptr, unsets) a variable for the scope of the test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string error_of(std::string_view text) {
  auto r = parse_tuning(text, "/etc/t.json");
  EXPECT_FALSE(r.ok()) << "parsed:\n" << text;
  return r.ok() ? "" : r.status().message();
}

// ------------------------------------------------------------- the format

TEST(TuningFile, RoundTripKeepsEveryField) {
  TuningFile f = sample();
  auto back = parse_tuning(to_json(f), "mem");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same(f, *back);
  EXPECT_EQ(to_json(*back), to_json(f));
}

// Files written before osmp-tune measured CMA have no figures for it: read,
// they keep the typical ones.
TEST(TuningFile, WithoutCmaFiguresTheTypicalOnes) {
  std::string text = to_json(sample());
  text = replace_once(text, "\"cma_call_us\": 0.14285714285714285,", "");
  text = replace_once(text, "\"cma_us_per_kib\": 0.0625,", "");
  auto r = parse_tuning(text, "old.json");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->calibration.cma_call_us, kTypicalCmaCallUs);
  EXPECT_EQ(r->calibration.cma_us_per_kib, kTypicalCmaUsPerKib);
}

TEST(TuningFile, DoublesRoundTripBitForBit) {
  std::mt19937_64 rng(42);
  std::vector<double> values = {0.1, 1.0 / 3.0, 5e-324, DBL_MIN, DBL_MAX, std::nextafter(1.0, 2.0), 1e-300, 0.0, 7.0};
  for (int i = 0; i < 200; ++i) {
    double d = std::bit_cast<double>(rng());
    if (std::isfinite(d)) values.push_back(std::fabs(d));
  }
  TuningFile f = sample();
  f.measurements.clear();
  for (double v : values) f.measurements.push_back({"allreduce", 8, "x", v, v});
  auto back = parse_tuning(to_json(f), "mem");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->measurements.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(same_double(back->measurements[i].us, values[i])) << values[i];
    EXPECT_TRUE(same_double(back->measurements[i].predicted_us, values[i])) << values[i];
  }
}

TEST(TuningFile, JsonHasMarkerAndStableKeyOrder) {
  std::string text = to_json(sample());
  EXPECT_EQ(text.rfind("{\n  \"format\": \"osmp-tuning\",\n  \"version\": 1,\n", 0), 0u) << text;
  EXPECT_EQ(text, to_json(sample()));
  std::size_t last = 0;
  for (const char* key : {"\"fingerprint\"", "\"machine\"", "\"processes\"", "\"created\"", "\"osmp_version\"",
                          "\"calibration\"", "\"source\"", "\"gamma_us_per_kib\"", "\"contention\"", "\"cma_call_us\"",
                          "\"cma_us_per_kib\"", "\"levels\"", "\"settings\"", "\"ops\"", "\"measurements\""}) {
    auto at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    EXPECT_GT(at, last) << key;
    last = at;
  }
  EXPECT_EQ(text.back(), '\n');
}

TEST(TuningFile, NoPredictionIsLeftOut) {
  TuningFile f = sample();
  f.measurements = {{"bcast", 1, "flat", 2.0, -1}};
  std::string text = to_json(f);
  EXPECT_EQ(text.find("predicted_us"), std::string::npos) << text;
  auto back = parse_tuning(text, "mem");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->measurements[0].predicted_us, -1);
}

TEST(TuningFile, NamesAreThoseOfTheRuntime) {
  std::vector<std::string> ops;
  for (OpKind k : kOpKinds) ops.push_back(to_string(k));
  EXPECT_EQ(std::vector<std::string>(tuning_op_names().begin(), tuning_op_names().end()), ops);
  // Every name is one the runtime sets (collectives/config.hpp), per operation
  // exactly where the runtime allows it.
  for (std::string_view name : team_setting_names())
    EXPECT_TRUE(name == "OSMP_VH" || CollectiveConfig::known(name)) << name;
  for (std::string_view per_op : op_setting_names()) {
    EXPECT_NE(std::find(team_setting_names().begin(), team_setting_names().end(), per_op), team_setting_names().end())
        << per_op;
    EXPECT_TRUE(per_op == "OSMP_VH" || CollectiveConfig::per_op(per_op)) << per_op;
  }
}

// Each case: a change to the sample's text and what the error must name.
struct Corruption {
  const char* from;
  const char* to;
  std::vector<std::string> names;
  Errc code = Errc::invalid_argument;
};

TEST(TuningFile, EveryCorruptionIsAnErrorNamingTheField) {
  const std::vector<Corruption> cases = {
      {"\"osmp-tuning\"", "\"osmp-tunings\"", {"format", "not an osmp tuning file"}},
      {"\"format\": \"osmp-tuning\",", "", {"format: missing"}},
      {"\"version\": 1,", "\"version\": 2,", {"version", "2", "not supported"}, Errc::unsupported},
      {"\"version\": 1,", "\"version\": \"1\",", {"version", "expected an integer"}},
      {"\"version\": 1,", "", {"version: missing"}},
      {"\"processes\": 8", "\"processes\": 0", {"processes", "outside"}},
      {"\"processes\": 8", "\"processes\": -3", {"processes", "outside"}},
      {"\"processes\": 8", "\"processes\": 8.5", {"processes", "expected an integer"}},
      {"\"processes\": 8", "\"processes\": 9999999999", {"processes", "outside"}},
      {"\"0123456789abcdef\"", "\"0123456789ABCDEF\"", {"fingerprint", "hex"}},
      {"\"0123456789abcdef\"", "null", {"fingerprint", "expected a string"}},
      {"\"machine\":", "\"machines\":", {"machines", "unknown field"}},
      {"\"created\": \"2025-01-31T12:34:56Z\",", "", {"created: missing"}},
      {"\"osmp_version\": \"0.1.0\"", "\"osmp_version\": 1", {"osmp_version", "expected a string"}},
      {"\"reduce\": {", "\"frobnicate\": {", {"ops.frobnicate", "unknown operation", "reduce_scatter_block"}},
      {"\"OSMP_KNOMIAL_RADIX\": \"4\"", "\"OSMP_CMA_MAX\": \"4\"", {"ops.reduce.OSMP_CMA_MAX", "team-wide"}},
      {"\"OSMP_KNOMIAL_RADIX\": \"4\"", "\"OSMP_FOO\": \"4\"", {"ops.reduce.OSMP_FOO", "unknown setting"}},
      {"\"OSMP_VH\": \"Package:7\"", "\"OSMP_VHH\": \"Package:7\"", {"settings.OSMP_VHH", "unknown setting"}},
      {"\"OSMP_FLAT_MAX\": \"8\"", "\"OSMP_FLAT_MAX\": 8", {"settings.OSMP_FLAT_MAX", "expected a string"}},
      {"\"OSMP_FLAT_MAX\": \"8\"", "\"OSMP_FLAT_MAX\": [\"8\"]", {"settings.OSMP_FLAT_MAX", "array"}},
      {"\"alpha_us\": 0.25", "\"alpha_us\": -0.25", {"calibration.levels[0].alpha_us", "negative"}},
      {"\"alpha_us\": 0.25", "\"alpha_us\": 1e999", {"not valid JSON", "1e999"}},
      {"\"alpha_us\": 0.25", "\"alpha_us\": \"0.25\"", {"calibration.levels[0].alpha_us", "expected a number"}},
      {"\"alpha_us\": 0.25,", "", {"calibration.levels[0].alpha_us: missing"}},
      {"\"level\": \"Core\"", "\"level\": \"\"", {"calibration.levels[2].level", "empty"}},
      {"\"gamma_us_per_kib\": 0.3333333333333333", "\"gamma_us_per_kib\": -1", {"calibration.gamma_us_per_kib"}},
      {"\"source\": \"measured by osmp-tune\",", "\"sauce\": 1,", {"calibration.sauce", "unknown field"}},
      {"\"contention\": 0.30000000000000004", "\"contention\": -0.3", {"calibration.contention", "negative"}},
      {"\"contention\": 0.30000000000000004,", "", {"calibration.contention: missing"}},
      {"\"cma_us_per_kib\": 0.0625", "\"cma_us_per_kib\": -1", {"calibration.cma_us_per_kib", "negative"}},
      {"\"cma_call_us\": 0.14285714285714285", "\"cma_call_us\": \"1\"", {"calibration.cma_call_us", "a number"}},
      {"\"us\": 12.5", "\"us\": -12.5", {"measurements[0].us", "negative"}},
      {"\"bytes\": 4096", "\"bytes\": -4096", {"measurements[0].bytes", "non-negative integer"}},
      {"\"bytes\": 4096", "\"bytes\": 4096.5", {"measurements[0].bytes", "non-negative integer"}},
      {"\"predicted_us\": 11.75", "\"predicted_us\": null", {"measurements[0].predicted_us", "a number"}},
      {"\"op\": \"reduce\"", "\"op\": \"\"", {"measurements[0].op", "empty"}},
      {"\"candidate\": \"flat\",", "", {"measurements[1].candidate: missing"}},
      {"\"settings\": {", "\"settings\": [{", {"not valid JSON at byte"}},
      {"\"ops\": {", "\"ops\": 3, \"x\": {", {"unknown field"}},
      {"\"OSMP_FLAT_MAX\": \"8\"", "\"OSMP_VH\": \"8\"", {"OSMP_VH", "twice"}},
  };
  const std::string good = to_json(sample());
  for (const Corruption& c : cases) {
    SCOPED_TRACE(std::string(c.from) + " -> " + c.to);
    auto r = parse_tuning(replace_once(good, c.from, c.to), "/etc/osmp/t.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code);
    const std::string& msg = r.status().message();
    EXPECT_EQ(msg.rfind("tuning file /etc/osmp/t.json: ", 0), 0u) << msg;
    for (const std::string& name : c.names) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  }
}

TEST(TuningFile, NotJsonOrNotAnObject) {
  EXPECT_NE(error_of("").find("not valid JSON at byte 1"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": ").find("not valid JSON at byte"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("top level: expected an object, got array"), std::string::npos);
  EXPECT_NE(error_of("{} trailing").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("{}").find("format: missing"), std::string::npos);
  EXPECT_NE(error_of("\xff\xfe{}").find("not valid JSON"), std::string::npos);
}

TEST(TuningFile, EveryTruncationIsAnError) {
  const std::string good = to_json(sample());
  const std::size_t closing = good.rfind('}');
  for (std::size_t n = 0; n <= closing; ++n) {
    auto r = parse_tuning(std::string_view(good).substr(0, n), "cut");
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
    EXPECT_EQ(r.status().message().rfind("tuning file cut: ", 0), 0u);
  }
  EXPECT_TRUE(parse_tuning(std::string_view(good).substr(0, closing + 1), "cut").ok());
}

TEST(TuningFile, RandomByteFlipsNeverCrash) {
  const std::string good = to_json(sample());
  std::mt19937 rng(20250131);
  int errors = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string text = good;
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips)
      text[rng() % text.size()] = static_cast<char>(rng() % 256);
    auto r = parse_tuning(text, "fuzz");
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.status().message().rfind("tuning file fuzz: ", 0), 0u) << r.status().message();
      continue;
    }
    auto again = parse_tuning(to_json(*r), "fuzz");  // what parses also writes back and parses again
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    expect_same(*r, *again);
  }
  EXPECT_GT(errors, 2000);
}

// ------------------------------------------------------------- files

TEST(TuningFileIo, SaveThenLoad) {
  TempDir dir;
  const std::string path = dir / "tuning.json";
  ASSERT_TRUE(save_tuning(sample(), path).ok());
  auto back = load_tuning(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same(sample(), *back);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"tuning.json"});  // no .tmp.<pid> left
}

TEST(TuningFileIo, OverwriteReplacesTheWholeFile) {
  TempDir dir;
  const std::string path = dir / "tuning.json";
  ASSERT_TRUE(save_tuning(sample(), path).ok());
  TuningFile small = sample();
  small.measurements.clear();
  small.fingerprint = "ffffffffffffffff";
  ASSERT_TRUE(save_tuning(small, path).ok());
  auto back = load_tuning(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same(small, *back);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"tuning.json"});
}

TEST(TuningFileIo, MissingParentsAreCreated) {
  TempDir dir;
  const std::string path = dir / "a/b/c/tuning.json";
  Status st = save_tuning(sample(), path);
  ASSERT_TRUE(st.ok()) << st.to_string();
  struct stat s {};
  ASSERT_EQ(::stat((dir / "a/b").c_str(), &s), 0);
  EXPECT_TRUE(S_ISDIR(s.st_mode));
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(s.st_mode & 0777, 0755 & ~mask);
  EXPECT_TRUE(load_tuning(path).ok());
}

TEST(TuningFileIo, UnwritablePathIsAnErrorNamingIt) {
  TempDir dir;
  std::ofstream(dir / "plain") << "a file, not a directory";
  const std::string path = dir / "plain/sub/tuning.json";
  Status st = save_tuning(sample(), path);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Errc::system);
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("exists"), std::string::npos) << st.message();  // strerror(EEXIST)

  if (::geteuid() != 0) {  // root writes anywhere
    ASSERT_EQ(::mkdir((dir / "ro").c_str(), 0500), 0);
    st = save_tuning(sample(), dir / "ro/tuning.json");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(dir / "ro/tuning.json"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("Permission denied"), std::string::npos) << st.message();
  }
  EXPECT_FALSE(save_tuning(sample(), "").ok());
}

TEST(TuningFileIo, InvalidFileIsNotWritten) {
  TempDir dir;
  TuningFile f = sample();
  f.settings["OSMP_NOPE"] = "1";
  Status st = save_tuning(f, dir / "t.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("settings.OSMP_NOPE"), std::string::npos) << st.message();
  f = sample();
  f.calibration.levels[1].beta_us_per_kib = std::numeric_limits<double>::infinity();
  st = save_tuning(f, dir / "t.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("calibration.levels[1].beta_us_per_kib"), std::string::npos) << st.message();
  EXPECT_TRUE(dir.entries().empty());
}

TEST(TuningFileIo, LoadMissingIsNotFound) {
  TempDir dir;
  auto r = load_tuning(dir / "none.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Errc::not_found);
  EXPECT_NE(r.status().message().find(dir / "none.json"), std::string::npos);
}

TEST(TuningFileIo, LoadDirectoryOrTruncatedFileIsAnError) {
  TempDir dir;
  auto r = load_tuning(dir / "");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos) << r.status().message();

  const std::string good = to_json(sample());
  std::ofstream(dir / "cut.json") << good.substr(0, good.size() / 2);
  r = load_tuning(dir / "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Errc::invalid_argument);
  EXPECT_NE(r.status().message().find("tuning file " + (dir / "cut.json") + ": not valid JSON at byte"),
            std::string::npos)
      << r.status().message();
}

// ------------------------------------------------------------- fingerprint

std::vector<CpuSet> places(const MachineTree& m, int n, MapBy map_by = MapBy::core, BindTo bind_to = BindTo::core) {
  auto p = place_ranks(m, PlacementRequest{n, map_by, bind_to, false});
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? *p : std::vector<CpuSet>{};
}

TEST(Fingerprint, SameMachineAndPlacementSameFingerprint) {
  Topology a = test::load("Package:2 L3Cache:2 Core:2 PU:2");
  Topology b = test::load("Package:2 L3Cache:2 Core:2 PU:2");
  std::string fa = fingerprint(a.machine(), places(a.machine(), 8));
  EXPECT_EQ(fa, fingerprint(b.machine(), places(b.machine(), 8)));
  EXPECT_EQ(fa.size(), 16u);
  EXPECT_EQ(fa.find_first_not_of("0123456789abcdef"), std::string::npos) << fa;
  TuningFile f = sample();
  f.fingerprint = fa;
  EXPECT_TRUE(parse_tuning(to_json(f), "mem").ok());
}

TEST(Fingerprint, GoldenValueOfAHandMadeMachine) {
  // Pinned: the text hashed must not change between osmp versions by accident.
  MachineTree m;
  m.nodes = {{"Machine", 0, 0, 0, "", test::cpus("0-3"), -1, {1, 2}, {}},
             {"Core", 1, 0, 0, "", test::cpus("0-1"), 0, {}, {}},
             {"Core", 1, 1, 1, "", test::cpus("2-3"), 0, {}, {}}};
  std::vector<CpuSet> p = {test::cpus("0-1"), test::cpus("2-3")};
  EXPECT_EQ(fingerprint(m, p), "cdc64d5d0b851c4c");
  EXPECT_EQ(fingerprint(m, {}), fingerprint(m, std::span<const CpuSet>()));

  MachineTree renamed = m;
  renamed.nodes[1].level = "L2Cache";
  EXPECT_NE(fingerprint(renamed, p), fingerprint(m, p));
  MachineTree reindexed = m;
  std::swap(reindexed.nodes[1].logical_index, reindexed.nodes[2].logical_index);
  EXPECT_NE(fingerprint(reindexed, p), fingerprint(m, p));
}

TEST(Fingerprint, EveryChangeOfPlacementOrMachineChangesIt) {
  Topology topo = test::load("Package:2 L3Cache:2 Core:2 PU:2");
  const MachineTree& m = topo.machine();
  const std::vector<CpuSet> base = places(m, 8);
  std::set<std::string> seen = {fingerprint(m, base)};
  auto expect_new = [&](const std::vector<CpuSet>& p, const MachineTree& machine, const char* what) {
    EXPECT_TRUE(seen.insert(fingerprint(machine, p)).second) << what;
  };
  std::vector<CpuSet> swapped = base;
  std::swap(swapped[0], swapped[1]);
  expect_new(swapped, m, "two ranks swapped");
  expect_new(std::vector<CpuSet>(base.begin(), base.end() - 1), m, "one rank fewer");
  expect_new(places(m, 8, MapBy::package), m, "map-by package");
  expect_new(places(m, 8, MapBy::core, BindTo::pu), m, "bind-to pu");
  expect_new(places(m, 8, MapBy::core, BindTo::l3), m, "bind-to l3");
  expect_new(places(m, 8, MapBy::pu), m, "map-by pu");
  std::vector<CpuSet> moved = base;
  moved[7] = test::cpus("0");
  expect_new(moved, m, "one binding changed");
  Topology other = test::load("Package:4 Core:2 PU:2");  // the same 16 PUs, split otherwise
  expect_new(places(other.machine(), 8), other.machine(), "another machine");
}

// ------------------------------------------------------------- where and whether

TEST(TuningPath, EnvironmentPrecedence) {
  ScopedEnv file("OSMP_TUNING_FILE", "/opt/t.json"), xdg("XDG_CONFIG_HOME", "/xdg"), home("HOME", "/home/u");
  EXPECT_EQ(default_tuning_path(), "/opt/t.json");
  {
    ScopedEnv off("OSMP_TUNING_FILE", "");
    EXPECT_EQ(default_tuning_path(), "");  // set but empty: disabled
  }
  ScopedEnv no_file("OSMP_TUNING_FILE", nullptr);
  EXPECT_EQ(default_tuning_path(), "/xdg/osmp/tuning.json");
  {
    ScopedEnv slash("XDG_CONFIG_HOME", "/xdg/");
    EXPECT_EQ(default_tuning_path(), "/xdg/osmp/tuning.json");
  }
  for (const char* ignored : {"", "relative/dir"}) {
    ScopedEnv bad("XDG_CONFIG_HOME", ignored);
    EXPECT_EQ(default_tuning_path(), "/home/u/.config/osmp/tuning.json") << "XDG_CONFIG_HOME=" << ignored;
  }
  ScopedEnv no_xdg("XDG_CONFIG_HOME", nullptr);
  EXPECT_EQ(default_tuning_path(), "/home/u/.config/osmp/tuning.json");
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_EQ(default_tuning_path(), "");
}

TEST(TuningLoadFor, MissingMismatchedCorruptAndGood) {
  TempDir dir;
  const std::string path = dir / "osmp/tuning.json";
  const TuningFile f = sample();

  auto none = load_for(path, f.fingerprint);
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_EQ(none->outcome, TuningLookup::Outcome::missing);
  EXPECT_FALSE(none->file);
  EXPECT_NE(none->note.find(path), std::string::npos) << none->note;

  auto disabled = load_for("", f.fingerprint);
  ASSERT_TRUE(disabled.ok());
  EXPECT_EQ(disabled->outcome, TuningLookup::Outcome::disabled);
  EXPECT_FALSE(disabled->file);

  ASSERT_TRUE(save_tuning(f, path).ok());
  auto other = load_for(path, "fedcba9876543210");
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  EXPECT_EQ(other->outcome, TuningLookup::Outcome::mismatch);
  EXPECT_FALSE(other->file);
  for (const std::string& part : {path, f.fingerprint, std::string("fedcba9876543210"), std::string("ignored")})
    EXPECT_NE(other->note.find(part), std::string::npos) << other->note;

  auto good = load_for(path, f.fingerprint);
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  EXPECT_EQ(good->outcome, TuningLookup::Outcome::loaded);
  ASSERT_TRUE(good->file);
  expect_same(f, *good->file);
  EXPECT_NE(good->note.find(path), std::string::npos) << good->note;

  std::ofstream(path, std::ios::trunc) << replace_once(to_json(f), "\"OSMP_VH\": \"Package:7\"", "\"OSMP_V\": \"7\"");
  auto corrupt = load_for(path, f.fingerprint);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.status().message().find(path), std::string::npos);
  EXPECT_NE(corrupt.status().message().find("settings.OSMP_V"), std::string::npos) << corrupt.status().message();
}

}  // namespace
}  // namespace osmp
