// osmp-topo: prints the communication tree osmp builds for a topology, a
// process count, a placement and a virtual-hierarchy spec, as text, JSON or a
// picture (SVG, or PNG through rsvg-convert).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/env.hpp"
#include "core/main.hpp"
#include "core/strings.hpp"
#include "osmp/build_info.hpp"
#include "topology/placed.hpp"
#include "topology/presets.hpp"
#include "topology/render.hpp"
#include "topology/topology.hpp"
#include "virtual_hier/split.hpp"

namespace {

const std::string kUsage = std::string("usage: osmp-topo [options]\n") + osmp::kPlacementUsage +
                           "  --vh SPEC          virtual hierarchy: LEVEL:DEGREE,..., LEVEL?MAX, ?MAX, auto\n"
                           "                     (default: OSMP_VH)\n"
                           "  --json             machine-readable output\n"
                           "  --svg FILE         also draw the tree as an SVG picture\n"
                           "  --png FILE         also draw it as a PNG picture (runs rsvg-convert, librsvg2-bin)\n"
                           "                     The text (or --json) still goes to stdout, unless FILE is '-':\n"
                           "                     then the picture goes there instead.\n"
                           "  --list-presets     print the paper machines and their synthetic strings\n"
                           "  --version          print the osmp version and git revision\n";

struct Options {
  osmp::PlacementArgs where;
  std::string vh;
  bool vh_given = false;
  bool json = false;
  std::string svg;  // "" when not asked for; "-" is stdout
  std::string png;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "osmp-topo: %s\n", msg.c_str());
  return 2;
}

// Returns 0 to go on, 1 when done (help), 2 on a bad command line.
int parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)name;
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage.c_str(), stdout);
      return 1;
    } else if (a == "--version") {
      osmp::build_info::print_version("osmp-topo");
      return 1;
    } else if (a == "--list-presets") {
      for (const auto& p : osmp::presets())
        std::printf("%-15s %s\n%15s %s\n", std::string(p.name).c_str(), std::string(p.machine).c_str(), "",
                    std::string(p.synthetic).c_str());
      return 1;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--oversubscribe") {
      o.where.oversubscribe = true;
    } else if (a == "--topology" || a == "--map-by" || a == "--bind-to" || a == "--vh" || a == "-n" || a == "--np" ||
               a == "--svg" || a == "--png") {
      v = value(a.c_str());
      if (v == nullptr) return fail(a + " needs a value"), 2;
      if (a == "--topology") o.where.topology = v, o.where.topology_given = true;
      if (a == "--map-by") o.where.map_by = v;
      if (a == "--bind-to") o.where.bind_to = v;
      if (a == "--vh") o.vh = v, o.vh_given = true;
      if ((a == "--svg" || a == "--png") && *v == '\0') return fail(a + " needs a file name"), 2;
      if (a == "--svg") o.svg = v;
      if (a == "--png") o.png = v;
      if (a == "-n" || a == "--np") {
        auto n = osmp::parse_int(v, 1, 1 << 20, "process count (-n)");
        if (!n.ok()) return fail(n.status().message()), 2;
        o.where.np = static_cast<int>(*n);
      }
    } else {
      return fail(osmp::cat("unknown option '", a, "'\n", kUsage)), 2;
    }
  }
  if (o.svg == "-" && o.png == "-") return fail("--svg and --png cannot both go to stdout ('-')"), 2;
  return 0;
}

// Writes `data` to `path` ("-": stdout). Returns "" or a message naming the file.
std::string write_file(const std::string& path, const std::string& data) {
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return osmp::cat("cannot write '", path, "': ", std::strerror(errno));
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  int err = errno;
  if ((f == stdout ? std::fflush(f) : std::fclose(f)) != 0 && ok) ok = false, err = errno;
  return ok ? "" : osmp::cat("cannot write '", path, "': ", std::strerror(err));
}

// Runs rsvg-convert on `svg_path` (argv, no shell). `png_path` "-": stdout.
std::string run_rsvg_convert(const std::string& svg_path, const std::string& png_path) {
  const char* cmd = "rsvg-convert";
  std::vector<std::string> args{cmd, "--format", "png"};
  if (png_path != "-") args.insert(args.end(), {"--output", png_path});
  args.push_back(svg_path);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, cmd, nullptr, nullptr, argv.data(), environ); rc != 0)
    return osmp::cat("cannot run '", cmd, "' for --png: ", std::strerror(rc), " (it comes with librsvg2-bin)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return osmp::cat("waiting for '", cmd, "': ", std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return osmp::cat(
      "'", cmd, "' failed to write ", png_path == "-" ? "the PNG to stdout" : "'" + png_path + "'", " (",
      WIFEXITED(status) ? osmp::cat("exit status ", WEXITSTATUS(status)) : osmp::cat("signal ", WTERMSIG(status)), ")");
}

// The SVG goes to a temporary file that rsvg-convert turns into `path`.
std::string write_png(const std::string& path, const std::string& svg) {
  // Creating `path` here reports a bad path the same way --svg does.
  if (path != "-")
    if (auto err = write_file(path, ""); !err.empty()) return err;
  std::error_code ec;
  auto dir = std::filesystem::temp_directory_path(ec);
  std::string tmp = ((ec ? std::filesystem::path("/tmp") : dir) / "osmp-topo-XXXXXX.svg").string();
  int fd = mkstemps(tmp.data(), 4);
  if (fd < 0) return osmp::cat("cannot create '", tmp, "': ", std::strerror(errno));
  ::close(fd);
  std::string err = write_file(tmp, svg);
  if (err.empty()) err = run_rsvg_convert(tmp, path);
  std::remove(tmp.c_str());
  if (!err.empty() && path != "-") std::remove(path.c_str());
  return err;
}

}  // namespace

namespace {
int run(int argc, char** argv) {
  Options o;
  if (int rc = parse(argc, argv, o)) return rc == 1 ? 0 : rc;

  auto placed = osmp::load_and_place(o.where);
  if (!placed.ok()) return fail(placed.status().message());
  const auto& machine = placed->topology.machine();
  auto spec = o.vh_given ? osmp::parse_spec(o.vh) : osmp::spec_from_env();
  if (!spec.ok()) return fail(spec.status().message());
  osmp::BuildOptions bo;
  bo.allow_oversubscribe = o.where.oversubscribe;
  osmp::SpecReport report;
  auto tree = osmp::build_tree(machine, placed->places, bo, *spec, &report);
  if (!tree.ok()) return fail(tree.status().message());
  if (auto st = tree->check(); !st.ok()) return fail(st.to_string());

  osmp::RenderContext ctx;
  ctx.topology = placed->topology.describe();
  ctx.placement = placed->placement;
  ctx.spec = spec->text;
  ctx.spec_notes = osmp::ineffective_items(report);
  if (!o.svg.empty() || !o.png.empty()) {
    std::string svg = osmp::render_svg(*tree, ctx);
    if (!o.svg.empty())
      if (auto err = write_file(o.svg, svg); !err.empty()) return fail(err);
    if (!o.png.empty())
      if (auto err = write_png(o.png, svg); !err.empty()) return fail(err);
    if (o.svg == "-" || o.png == "-") return 0;
  }
  std::string out = o.json ? osmp::render_json(*tree, ctx) : osmp::render_text(*tree, ctx);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  return osmp::guarded_main("osmp-topo", [&] { return run(argc, argv); });
}
