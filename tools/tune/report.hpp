// What osmp-tune prints and writes, on rank 0: the progress bar, the tables,
// the tuning file and the degree-vs-latency plot.
#pragma once

#include <cstdio>
#include <string>

#include "osmp.hpp"
#include "team/team.hpp"
#include "tools/tune/sweep.hpp"
#include "tuning/tuning_file.hpp"

namespace osmp::tune {

// A progress bar with the time left, on a terminal; a line every tenth otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(std::FILE* out);
  void operator()(int done, int total, const std::string& what);
  void finish();

 private:
  std::FILE* out_;
  bool tty_;
  double start_us_;
  int last_tenth_ = -1;
};

std::string format_duration(double seconds);

void print_calibration(std::FILE* out, const Calibration& cal);

// The tuning file of a sweep: settings, measurements (with the model's
// prediction of each), calibration, fingerprint of this team.
TuningFile make_file(const TeamCore& core, const Outcome& o, const Calibration& cal, const std::string& placement);

// Default against tuned per op and size, the model's prediction of the
// defaults beside the measurement, and the overall gain.
void print_results(std::FILE* out, const Outcome& o, const TuningFile& f);

// Degree (spec) against latency per operation, one line per size: a gnuplot
// PNG at `png` (its data and script beside it). Empty on success, else why not.
std::string plot_degrees(const Outcome& o, const std::string& png);

}  // namespace osmp::tune
