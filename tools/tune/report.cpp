#include "tools/tune/report.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

#include "core/strings.hpp"
#include "osmp/build_info.hpp"
#include "team/team.hpp"
#include "tuning/model.hpp"

namespace osmp::tune {
namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string size_label(std::size_t b) {
  if (b == 0) return "-";
  if (b >= (1u << 20) && b % (1u << 20) == 0) return cat(b >> 20, " MiB");
  if (b >= 1024 && b % 1024 == 0) return cat(b >> 10, " KiB");
  return cat(b, " B");
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The model's time for a point: its tree and collective settings.
double predicted(const TeamCore& core, const Calibration& cal, const Point& p) {
  auto tree = core.tree_with(p.settings.count("OSMP_VH") ? p.settings.at("OSMP_VH") : "");
  if (!tree.ok()) return -1;
  CollectiveConfig cfg;
  for (const auto& [k, v] : p.settings)
    if (k != "OSMP_VH" && !cfg.set(k, v).ok()) return -1;
  ModelOptions mo{core.options().slot_bytes, core.options().bcast_bytes};
  auto pred = predict(*tree, cal, cfg, p.op, p.bytes, mo);
  return pred.ok() ? pred->us : -1;
}

// Best of the final pass per (op, bytes) for one stage.
std::map<std::pair<OpKind, std::size_t>, double> final_times(const Outcome& o, const std::string& stage) {
  std::map<std::pair<OpKind, std::size_t>, double> m;
  for (const auto& p : o.points) {
    if (p.stage != stage) continue;
    auto [it, fresh] = m.emplace(std::make_pair(p.op, p.bytes), p.us);
    if (!fresh) it->second = std::min(it->second, p.us);
  }
  return m;
}

}  // namespace

ProgressBar::ProgressBar(std::FILE* out) : out_(out), tty_(::isatty(::fileno(out)) != 0), start_us_(now_us()) {}

std::string format_duration(double s) {
  if (s < 60) return cat(std::lround(s), " s");
  const int m = static_cast<int>(s / 60);
  return cat(m, " min ", static_cast<int>(s - m * 60), " s");
}

void ProgressBar::operator()(int done, int total, const std::string& what) {
  const double elapsed = (now_us() - start_us_) / 1e6;
  const double frac = total > 0 ? static_cast<double>(done) / total : 0;
  const std::string eta = done > 0 ? format_duration(elapsed / done * (total - done)) : "?";
  if (tty_) {
    const int width = 30, fill = static_cast<int>(frac * width);
    std::fprintf(out_, "\r  [%s%s] %3d%%  %d/%d  %s left  %-44.44s",
                 std::string(static_cast<std::size_t>(fill), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - fill), '.').c_str(), static_cast<int>(frac * 100), done,
                 total, eta.c_str(), what.c_str());
  } else if (static_cast<int>(frac * 10) != last_tenth_) {
    last_tenth_ = static_cast<int>(frac * 10);
    std::fprintf(out_, "  %3d%%  %d/%d points, %s left (now: %s)\n", static_cast<int>(frac * 100), done, total,
                 eta.c_str(), what.c_str());
  }
  std::fflush(out_);
}

void ProgressBar::finish() {
  const double elapsed = (now_us() - start_us_) / 1e6;
  std::fprintf(out_, "%s  done in %s\n", tty_ ? "\n" : "", format_duration(elapsed).c_str());
}

void print_calibration(std::FILE* out, const Calibration& cal) {
  std::fprintf(out, "calibration (%s):\n  %-12s %10s %12s\n", cal.source.c_str(), "level", "alpha (us)", "beta (GB/s)");
  for (const auto& l : cal.levels)
    std::fprintf(out, "  %-12s %10.3f %12.1f\n", l.level.c_str(), l.alpha_us,
                 l.beta_us_per_kib > 0 ? gb_per_s(l.beta_us_per_kib) : 0.0);
  std::fprintf(out, "  reduction (float sum): %.1f GB/s; contention %.2f per extra reader\n",
               cal.gamma_us_per_kib > 0 ? gb_per_s(cal.gamma_us_per_kib) : 0.0, cal.contention);
  std::fprintf(out, "  CMA single copy: %.2f us per call, %.1f GB/s\n", cal.cma_call_us,
               cal.cma_us_per_kib > 0 ? gb_per_s(cal.cma_us_per_kib) : 0.0);
}

TuningFile make_file(const TeamCore& core, const Outcome& o, const Calibration& cal, const std::string& placement) {
  TuningFile f;
  f.fingerprint = fingerprint(core.machine(), core.tree().places());
  f.machine = cat(core.topology_description(), ", ", core.size(), " processes, ", placement);
  f.processes = core.size();
  f.created = utc_now();
  f.osmp_version = build_info::kVersion;
  f.calibration = cal;
  f.settings = o.team;
  for (const auto& [op, s] : o.per_op) {
    Settings kept;
    for (const auto& [k, v] : s)
      if (!(k == "OSMP_VH" && v.empty()) && !(k == "OSMP_BASE_CASE" && v == "auto")) kept[k] = v;
    if (!kept.empty()) f.ops[to_string(op)] = kept;
  }
  for (const auto& p : o.points)
    f.measurements.push_back({to_string(p.op), p.bytes, p.stage + (p.candidate.empty() ? "" : ": " + p.candidate), p.us,
                              predicted(core, cal, p)});
  return f;
}

void print_results(std::FILE* out, const Outcome& o, const TuningFile& f) {
  auto def = final_times(o, "final-default"), tuned = final_times(o, "final-tuned");
  std::map<std::pair<std::string, std::uint64_t>, double> model;
  for (const auto& m : f.measurements)
    if (m.candidate.rfind("final-default", 0) == 0 && m.predicted_us >= 0) model[{m.op, m.bytes}] = m.predicted_us;
  std::fprintf(out, "\nchosen:\n");
  if (o.team.empty() && o.per_op.empty())
    std::fprintf(out, "  the defaults (nothing beat them by 3%%; below, the same settings timed twice: the noise)\n");
  for (const auto& [k, v] : o.team) std::fprintf(out, "  every operation: %s=%s\n", k.c_str(), v.c_str());
  for (const auto& [op, s] : o.per_op) std::fprintf(out, "  %-20s %s\n", to_string(op), describe(s).c_str());
  std::fprintf(out, "\n  %-20s %9s %12s %12s %7s %12s\n", "operation", "size", "default us", "tuned us", "gain",
               "model us");
  double log_sum = 0;
  int n = 0;
  for (const auto& [key, d] : def) {
    const double t = tuned.count(key) ? tuned.at(key) : d;
    auto m = model.find({to_string(key.first), key.second});
    std::fprintf(out, "  %-20s %9s %12.2f %12.2f %6.2fx %12s\n", to_string(key.first), size_label(key.second).c_str(),
                 d, t, d / t, m == model.end() ? "-" : cat(std::round(m->second * 100) / 100).c_str());
    log_sum += std::log(d / t);
    ++n;
  }
  if (n)
    std::fprintf(out, "  tuned against the defaults: %.2fx (geometric mean over %d points; > 1: faster)\n",
                 std::exp(log_sum / n), n);
}

std::string plot_degrees(const Outcome& o, const std::string& png) {
  // Candidates in the order tried; one data block per op, one column per size.
  std::vector<OpKind> ops;
  std::vector<std::string> specs;
  std::set<std::size_t> sizes;
  std::map<std::tuple<OpKind, std::string, std::size_t>, double> us;
  for (const auto& p : o.points) {
    if (p.stage != "default" && p.stage != "vh") continue;
    std::string spec =
        p.settings.count("OSMP_VH") && !p.settings.at("OSMP_VH").empty() ? p.settings.at("OSMP_VH") : "none";
    if (std::find(ops.begin(), ops.end(), p.op) == ops.end()) ops.push_back(p.op);
    if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
    sizes.insert(p.bytes);
    us[{p.op, spec, p.bytes}] = p.us;
  }
  if (ops.empty() || specs.size() < 2) return "one virtual hierarchy only (groups of two at most): nothing to compare";
  const std::string dat = png + ".dat", gp = png + ".gp";
  std::ofstream d(dat);
  for (OpKind op : ops) {
    d << "# " << to_string(op) << "\n";
    for (std::size_t i = 0; i < specs.size(); ++i) {
      d << i << " \"" << specs[i] << "\"";
      for (std::size_t b : sizes) {
        auto it = us.find({op, specs[i], b});
        d << " " << (it == us.end() ? std::string("NaN") : cat(it->second));
      }
      d << "\n";
    }
    d << "\n\n";
  }
  std::ofstream g(gp);
  const int cols = std::min<int>(4, static_cast<int>(ops.size()));
  const int rows = (static_cast<int>(ops.size()) + cols - 1) / cols;
  g << "set terminal pngcairo size " << 420 * cols << "," << 340 * rows << " font ',9' noenhanced\n"
    << "set output '" << png << "'\nset multiplot layout " << rows << "," << cols
    << " title 'osmp-tune: virtual hierarchy against latency (each op timed alone)'\n"
    << "set logscale y\nset ylabel 'us'\nset xtics rotate by -30\nset key top left font ',8'\nset grid ytics\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    g << "set title '" << to_string(ops[i]) << "'\nplot ";
    int c = 3;
    bool first = true;
    for (std::size_t b : sizes) {
      bool has = false;  // barrier has one column; the others none of it
      for (const auto& spec : specs) has = has || us.count({ops[i], spec, b});
      if (has) {
        g << (first ? "" : ", ") << "'" << dat << "' index " << i << " using 1:" << c
          << ":xtic(2) with linespoints title '" << (b ? size_label(b) : "no data") << "'";
        first = false;
      }
      ++c;
    }
    g << "\n";
  }
  g << "unset multiplot\n";
  g.close();
  d.close();
  // No shell: the path goes to gnuplot as one argument.
  char* argv[] = {const_cast<char*>("gnuplot"), const_cast<char*>(gp.c_str()), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0)
    return "cannot run gnuplot (scripts/setup.sh installs gnuplot-nox)";
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "" : cat("gnuplot failed on ", gp);
}

}  // namespace osmp::tune
