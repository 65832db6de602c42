// osmp-cart: the weighted, hardware-aware factorization of a Cartesian
// process grid (mpi_glue/cart), as a table like the paper's section 6: one
// row per hardware level with its factors and weighted cost, then the final
// dims. With one level it is a single MPI_Dims_create_weighted call.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/strings.hpp"
#include "mpi_glue/cart/dims.hpp"
#include "osmp/build_info.hpp"

namespace {

const char* kUsage =
    "usage: osmp-cart --levels N0[,N1,...] [options]\n"
    "  --levels N0,N1,...   processes per hardware level, top-down (nodes, packages\n"
    "                       per node, cores per package); one value: single level\n"
    "  --weights W0,W1,...  communication weight per dim: numbers or fractions\n"
    "                       (1/12); default: equal weights\n"
    "  --mesh G0,G1,...     data mesh extents instead of weights: w_i = G / g_i\n"
    "  --dims D0,D1,...     preset final dims: 0 = free, > 0 = fixed\n"
    "  --ndims D            number of dims (default: the length of the lists above)\n"
    "  --refined            the paper's section 6 refinements: a level's term is\n"
    "                       dropped where its factor is 1, counted once where it is 2\n"
    "                       on a non-periodic dim\n"
    "  --periods P0,P1,...  1 = periodic, 0 = open, per dim (default: all periodic;\n"
    "                       only --refined reads them)\n"
    "  -h, --help           this text\n"
    "  --version            the osmp version and git revision\n";

struct Options {
  std::vector<int> levels;
  std::vector<double> weights;
  std::vector<std::int64_t> mesh;
  std::vector<int> dims;
  std::vector<int> periods;
  int ndims = 0;
  osmp::cart::CostModel model;
};

using osmp::Result;
using osmp::Status;

Status bad(const std::string& arg, const std::string& msg) {
  return Status(osmp::Errc::invalid_argument, arg + ": " + msg);
}

template <class T>
Result<std::vector<T>> parse_ints(const std::string& arg, const char* text, long long lo, long long hi) {
  std::vector<T> out;
  for (std::string_view item : osmp::split(text, ',')) {
    auto v = osmp::parse_int(item, lo, hi, arg);
    if (!v.ok()) return v.status();
    out.push_back(static_cast<T>(*v));
  }
  return out;
}

// "0.25", "1e-3" or "1/12".
std::optional<double> parse_number(std::string_view text) {
  text = osmp::trim(text);
  auto slash = text.find('/');
  if (slash != std::string_view::npos) {
    if (text.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
    auto num = parse_number(text.substr(0, slash));
    auto den = parse_number(text.substr(slash + 1));
    if (!num || !den) return std::nullopt;
    return *num / *den;
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

Result<std::vector<double>> parse_weights(const char* text) {
  std::vector<double> out;
  for (std::string_view item : osmp::split(text, ',')) {
    auto v = parse_number(item);
    if (!v || !std::isfinite(*v) || *v <= 0)
      return bad("--weights", "'" + std::string(item) + "' is not a positive number");
    out.push_back(*v);
  }
  return out;
}

template <class T, class U>
Status assign(Result<T> r, U& out) {
  if (!r.ok()) return r.status();
  out = static_cast<U>(std::move(*r));
  return {};
}

// Returns 0 to go on, 1 when done (help), 2 on a bad command line.
int parse(int argc, char** argv, Options& o, Status& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 1;
    }
    if (a == "--version") {
      osmp::build_info::print_version("osmp-cart");
      return 1;
    }
    if (a == "--refined") {
      o.model.refined = true;
      continue;
    }
    if (a != "--levels" && a != "--weights" && a != "--mesh" && a != "--dims" && a != "--ndims" && a != "--periods") {
      error = Status(osmp::Errc::invalid_argument, "unknown option '" + a + "' (see -h)");
      return 2;
    }
    if (i + 1 >= argc) {
      error = bad(a, "needs a value");
      return 2;
    }
    const char* v = argv[++i];
    Status st;
    if (a == "--levels") {
      st = assign(parse_ints<int>(a, v, 1, INT_MAX), o.levels);
    } else if (a == "--weights") {
      st = assign(parse_weights(v), o.weights);
    } else if (a == "--mesh") {
      st = assign(parse_ints<std::int64_t>(a, v, 1, LLONG_MAX), o.mesh);
    } else if (a == "--dims") {
      st = assign(parse_ints<int>(a, v, 0, INT_MAX), o.dims);
    } else if (a == "--periods") {
      st = assign(parse_ints<int>(a, v, 0, 1), o.periods);
    } else {
      st = assign(osmp::parse_int(v, 1, 64, a), o.ndims);
    }
    if (!st.ok()) {
      error = st;
      return 2;
    }
  }
  return 0;
}

// Saturates above INT_MAX, so the caller can tell it is too many.
long long total_of(const std::vector<int>& levels) {
  long long total = 1;
  for (int s : levels) total = std::min<long long>(total * s, 1LL + INT_MAX);
  return total;
}

// The number of dims every list agrees on, and the weights (from --mesh).
Status resolve(Options& o) {
  if (o.levels.empty()) return bad("--levels", "missing (the processes per level, e.g. 24,4,8)");
  if (!o.weights.empty() && !o.mesh.empty()) return bad("--mesh", "give --weights or --mesh, not both");
  struct List {
    const char* name;
    std::size_t size;
  };
  for (List l : {List{"--weights", o.weights.size()}, List{"--mesh", o.mesh.size()}, List{"--dims", o.dims.size()},
                 List{"--periods", o.periods.size()}}) {
    if (l.size == 0) continue;
    if (o.ndims == 0) o.ndims = static_cast<int>(l.size);
    if (l.size != static_cast<std::size_t>(o.ndims))
      return bad(l.name, osmp::cat("has ", l.size, " entries but there are ", o.ndims, " dims"));
  }
  if (o.ndims == 0) return bad("--ndims", "missing: give --weights, --mesh, --dims or --ndims");
  const long long total = total_of(o.levels);
  if (total > INT_MAX) return bad("--levels", osmp::cat("the levels multiply to more than ", INT_MAX));
  if (!o.mesh.empty()) {
    auto w = osmp::cart::weights_from_mesh(o.mesh);
    if (!w.ok()) return bad("--mesh", w.status().message());
    o.weights = *w;
  }
  if (Status st = osmp::cart::check_preset(total, o.dims); !st.ok()) return bad("--dims", st.message());
  for (int p : o.periods) o.model.periodic.push_back(p != 0);
  return {};
}

std::string num(double v) {
  char buf[64];
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

template <class T>
std::string join(const std::vector<T>& values, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += sep;
    if constexpr (std::is_floating_point_v<T>) {
      out += num(values[i]);
    } else {
      out += std::to_string(values[i]);
    }
  }
  return out;
}

// w_i * n_i in the user's units (equal weights: n_i).
std::vector<double> terms(const std::vector<double>& w, const std::vector<int>& n) {
  std::vector<double> out(n.size());
  for (std::size_t i = 0; i < n.size(); ++i) out[i] = (w.empty() ? 1.0 : w[i]) * n[i];
  return out;
}

// Left-aligned columns, two spaces apart.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c >= width.size()) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? row[c] + std::string(width[c] + 2 - row[c].size(), ' ') : row[c];
    std::printf("%s\n", line.c_str());
  }
}

std::vector<std::vector<std::string>> header(const Options& o) {
  std::string processes = std::to_string(o.levels[0]);
  if (o.levels.size() > 1) processes = osmp::cat(total_of(o.levels), " = ", join(o.levels, " x "));
  std::string weights = o.weights.empty() ? "equal" : join(o.weights, " ");
  if (!o.mesh.empty()) weights += " (from mesh " + join(o.mesh, " x ") + ")";
  std::vector<std::vector<std::string>> rows = {{"processes", processes}, {"weights", weights}};
  if (!o.dims.empty()) rows.push_back({"preset", join(o.dims, " ") + " (0 = free)"});
  if (o.model.refined) {
    rows.push_back({"objective", "refined (section 6), periods " +
                                     (o.periods.empty() ? std::string("all periodic") : join(o.periods, " "))});
  }
  return rows;
}

int single_level(const Options& o) {
  std::vector<int> dims = o.dims.empty() ? std::vector<int>(o.ndims, 0) : o.dims;
  Status st = osmp::cart::dims_create_weighted(o.levels[0], o.ndims, o.weights, dims, o.model);
  if (!st.ok()) return std::fprintf(stderr, "osmp-cart: %s\n", st.to_string().c_str()), 1;
  auto rows = header(o);
  rows.push_back({"dims", join(dims, " x ")});
  rows.push_back({"w_i * d_i", join(terms(o.weights, dims), " ")});
  rows.push_back({"cost", num(osmp::cart::weighted_cost(o.weights, dims))});
  if (o.model.refined) {
    std::vector<double> w = o.weights.empty() ? std::vector<double>(o.ndims, 1.0) : o.weights;
    rows.push_back({"refined", num(osmp::cart::level_objective(w, dims, o.model))});
  }
  print_table(rows);
  return 0;
}

int multi_level(const Options& o) {
  auto ml = osmp::cart::dims_create_multilevel(o.levels, o.ndims, o.weights, o.dims, o.model);
  if (!ml.ok()) return std::fprintf(stderr, "osmp-cart: %s\n", ml.status().to_string().c_str()), 1;
  print_table(header(o));
  std::printf("\n");
  std::vector<std::vector<std::string>> rows = {{"level", "N(l)", "n_i(l)", "w_i * prod_{k<=l} n_i(k)", "sum"}};
  if (o.model.refined) rows[0].emplace_back("refined");
  std::vector<int> reached(o.ndims, 1);
  for (std::size_t l = 0; l < ml->levels.size(); ++l) {
    for (int i = 0; i < o.ndims; ++i) reached[i] *= ml->levels[l][i];
    rows.push_back({std::to_string(l), std::to_string(o.levels[l]), join(ml->levels[l], " x "),
                    join(terms(o.weights, reached), " "), num(ml->level_cost[l])});
    if (o.model.refined) rows.back().push_back(num(ml->level_objective[l]));
  }
  rows.push_back({"final", std::to_string(total_of(o.levels)), join(ml->dims, " x "),
                  join(terms(o.weights, ml->dims), " "), num(osmp::cart::weighted_cost(o.weights, ml->dims))});
  print_table(rows);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  Status error;
  if (int rc = parse(argc, argv, o, error)) {
    if (rc == 2) std::fprintf(stderr, "osmp-cart: %s\n", error.message().c_str());
    return rc == 1 ? 0 : rc;
  }
  if (Status st = resolve(o); !st.ok()) {
    std::fprintf(stderr, "osmp-cart: %s\n", st.message().c_str());
    return 2;
  }
  return o.levels.size() == 1 ? single_level(o) : multi_level(o);
}
