#include "tuning/model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <ranges>
#include <set>

#include "collectives/base/knomial.hpp"
#include "collectives/plan.hpp"
#include "collectives/protocol.hpp"
#include "core/strings.hpp"
#include "virtual_hier/split.hpp"

namespace osmp {
namespace {

double kib(double bytes) { return bytes / 1024.0; }
// Up to kInlineBytes ride in the flag's own line: the hand-off carries them.
double wire_kib(double bytes) { return bytes <= static_cast<double>(kInlineBytes) ? 0.0 : kib(bytes); }
bool is_cache(std::string_view level) { return level.size() > 6 && level[0] == 'L' && ends_with(level, "Cache"); }
double dbl(std::size_t v) { return static_cast<double>(v); }

// A group as the model sees it.
struct Group {
  int domain = 0;
  int depth = 0;
  int p = 0;               // units
  std::vector<int> units;  // ranks in each unit, group order (unit 0 leads)
  BaseCase base;
  LevelCost cost;
};

using Up = UpMove;  // ops/description.hpp: StepShape
using Down = DownMove;

// What one step moves: `up_m` per unit (gather: per rank), `down_m` per
// member; how its groups run it is the plan's (collectives/plan.hpp).
struct Step {
  Up up = Up::flags;
  double up_m = 0;
  Down down = Down::flags;
  double down_m = 0;
  StepPlan plan;
};

struct GroupTime {
  double us = 0;
  double bytes = 0;
  std::string base;
};

struct Ctx {
  const Tree& tree;
  const Calibration& cal;
  const CollectiveConfig& cfg;
  ModelOptions opt;
  std::vector<Group> groups;  // tree order: the root's first
  int max_depth = 0;

  PlanShape shape;
  PlanSettings settings;  // model_settings(cfg): the plan the model predicts
  const Group& top() const { return groups.front(); }
  double crowd(int readers) const { return 1.0 + cal.contention * std::max(0, readers - 1); }
};

std::string base_name(const BaseCase& b) {
  return b.kind == BaseCase::Kind::knomial ? cat("knomial:", b.radix) : std::string("flat");
}

Result<Ctx> make_ctx(const Tree& tree, const Calibration& cal, const CollectiveConfig& cfg, const ModelOptions& opt) {
  Ctx x{tree, cal, cfg, opt, {}, 0, plan_shape(tree, opt.slot_bytes, opt.bcast_bytes), model_settings(cfg, tree)};
  for (int id = 0; id < static_cast<int>(tree.domains().size()); ++id) {
    const Domain& d = tree.domain(id);
    if (!d.has_group()) continue;
    Group g;
    g.domain = id;
    g.depth = d.depth;
    g.p = static_cast<int>(d.group.size());
    for (int leader : d.group) {
      int size = 1;  // a rank placed directly in d
      for (int c : d.children)
        if (tree.domain(c).leader == leader) size = static_cast<int>(tree.domain(c).members.size());
      g.units.push_back(size);
    }
    g.base = cfg.choose(d.level, g.p);  // as Engine::create chooses
    OSMP_ASSIGN_OR_RETURN(g.cost, level_cost(tree, id, cal));
    x.max_depth = std::max(x.max_depth, g.depth);
    x.groups.push_back(std::move(g));
  }
  return x;
}

GroupTime up_time(const Ctx& x, const Group& g, const StepPlan& plan, Up kind, double m) {
  const double a = g.cost.alpha_us, b = g.cost.beta_us_per_kib;
  const double gamma = kind == Up::reduce ? x.cal.gamma_us_per_kib : 0.0;
  const BaseCase base = level_base(plan, g.base);
  if (kind == Up::gather) {  // concatenating: the local root reads every unit's part
    GroupTime t{(g.p - 1) * a, 0, base_name(base)};
    for (int u = 1; u < g.p; ++u) {
      const double part = g.units[static_cast<std::size_t>(u)] * m;
      t.us += wire_kib(part) * b;
      t.bytes += part;
    }
    return t;
  }
  if (kind == Up::flags) m = 0;
  const double one = a + wire_kib(m) * b + kib(m) * gamma;
  // The local root's reads: every member (flat), or its k-nomial children,
  // one round after the other.
  const int reads =
      base.kind == BaseCase::Kind::knomial ? Knomial{g.p, knomial_radix(base), 0}.child_count(0) : g.p - 1;
  return {reads * one, reads * m, base_name(base)};
}

// Contention (Calibration::contention = c): r processes reading from one
// source (a flag, an area, a slot) at once. Requests for one line are served
// one after the other at its home, so the last reader's hand-off waits
// c (r-1) alpha more; once served the readers stay staggered, so a sequence
// of such reads pays this once. Each reader gets 1 / (1 + c (r-1)) of the
// source's bandwidth.
GroupTime down_time(const Ctx& x, const Group& g, Down kind, double m) {
  const double a = g.cost.alpha_us, b = g.cost.beta_us_per_kib, crowd = x.crowd(g.p - 1);
  if (kind == Down::scatter) {  // each member reads its own part of one area
    double part = 0;
    for (int u = 1; u < g.p; ++u) part = std::max(part, g.units[static_cast<std::size_t>(u)] * m);
    return {(a + wire_kib(part) * b) * crowd, part, "flat"};
  }
  if (kind == Down::flags) m = 0;
  return {(a + wire_kib(m) * b) * crowd, m, "flat"};
}

// The top group's own way for small one-step calls and large allreduce
// chunks: every member reads the others' lines in the same order (unit 0
// first), so they collide on the first one only.
GroupTime top_time(const Ctx& x, const Group& g, const Step& s) {
  const double a = g.cost.alpha_us, b = g.cost.beta_us_per_kib;
  const double gamma = s.up == Up::reduce ? x.cal.gamma_us_per_kib : 0.0;
  const double others = g.p - 1, reads = others * a + (x.crowd(g.p - 1) - 1) * a;
  if (s.plan.top == TopCase::symmetric) {  // data in the lines, or (allreduce) in the slots
    const double m = s.up == Up::reduce ? s.up_m : 0.0;
    const double wire = s.up_m > static_cast<double>(kInlineBytes) ? others * kib(s.up_m) * b : 0.0;
    return {reads + wire + others * kib(m) * gamma, others * s.up_m, "symmetric"};
  }
  // Slices: ready flags; my slice of every member's chunk combined; acks;
  // every other slice read back. Every slot and slice is read by all the
  // other members at once.
  const double slice = wire_kib(s.up_m / g.p), crowd = x.crowd(g.p - 1);
  const double us = 2 * reads + others * slice * (b * crowd + gamma) + others * slice * b * crowd;
  return {us, 2 * others * s.up_m / g.p, "slices"};
}

// One row per depth: the slowest group there (they run in parallel).
template <class F>
void add_rows(const Ctx& x, std::vector<LevelTerm>& out, const std::string& phase, bool bottom_up, bool skip_top,
              F&& time) {
  for (int i = 0; i <= x.max_depth; ++i) {
    const int depth = bottom_up ? x.max_depth - i : i;
    LevelTerm row;
    bool any = false;
    for (const Group& g : x.groups) {
      if (g.depth != depth || (skip_top && g.domain == x.top().domain)) continue;
      GroupTime t = time(g);
      ++row.groups;
      if (any && t.us <= row.us) continue;
      any = true;
      row.level = x.tree.domain(g.domain).level;
      row.cost_level = g.cost.level;
      row.group_size = g.p;
      row.base = t.base;
      row.bytes = t.bytes;
      row.us = t.us;
    }
    if (!any) continue;
    row.phase = phase;
    row.depth = depth;
    out.push_back(std::move(row));
  }
}

std::vector<LevelTerm> step_rows(const Ctx& x, const Step& s, const std::string& label) {
  std::vector<LevelTerm> rows;
  const bool own_top = s.plan.top != TopCase::tree;
  // A one-pass step goes one way only (StepPlan::one_pass): no header round trip.
  if (s.plan.up) {
    add_rows(x, rows, label + "up", true, own_top, [&](const Group& g) { return up_time(x, g, s.plan, s.up, s.up_m); });
  }
  if (own_top) {
    const Group& g = x.top();
    GroupTime t = top_time(x, g, s);
    rows.push_back({label + "top", 0, x.tree.root().level, g.cost.level, 1, g.p, t.base, t.bytes, t.us});
  }
  if (s.plan.down) {
    add_rows(x, rows, label + "down", false, own_top,
             [&](const Group& g) { return down_time(x, g, s.down, s.down_m); });
  }
  return rows;
}

double sum_us(const std::vector<LevelTerm>& rows) {
  double s = 0;
  for (const auto& r : rows) s += r.us;
  return s;
}

std::size_t slowest(const std::vector<LevelTerm>& rows) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].us > rows[best].us) best = i;
  return best;
}

// Up-only (reduce) or down-only (bcast) chunk steps: the first chunk goes
// through every level, each later one adds the slowest level's time (the
// double-buffered areas let the levels work on consecutive chunks at once).
std::vector<LevelTerm> pipeline(const Ctx& x, Step s, std::size_t total, std::size_t chunk) {
  const std::size_t chunks = (total + chunk - 1) / chunk, last = total - (chunks - 1) * chunk;
  auto rows_for = [&](std::size_t bytes) {
    Step c = s;
    (c.up == Up::flags ? c.down_m : c.up_m) = dbl(bytes);
    std::vector<LevelTerm> r;
    if (c.up == Up::flags) {
      add_rows(x, r, "chunks down", false, false, [&](const Group& g) { return down_time(x, g, c.down, c.down_m); });
    } else {
      add_rows(x, r, "chunks up", true, false, [&](const Group& g) { return up_time(x, g, c.plan, c.up, c.up_m); });
    }
    return r;
  };
  std::vector<LevelTerm> rows = rows_for(std::min(chunk, total));
  if (chunks >= 2) {
    std::vector<LevelTerm> full = rows_for(chunk), tail = rows_for(last);
    rows[slowest(full)].us += dbl(chunks - 2) * full[slowest(full)].us;
    rows[slowest(tail)].us += tail[slowest(tail)].us;
  }
  return rows;
}

// Allreduce chunk steps: each a full round trip (a rank takes the next chunk
// up only once the last one's release reached it).
std::vector<LevelTerm> round_trips(const Ctx& x, Step s, std::size_t total, std::size_t chunk) {
  const std::size_t chunks = (total + chunk - 1) / chunk, last = total - (chunks - 1) * chunk;
  s.up_m = s.down_m = dbl(chunk);
  std::vector<LevelTerm> rows = step_rows(x, s, "chunks ");
  for (auto& r : rows) r.us *= dbl(chunks - 1);
  s.up_m = s.down_m = dbl(last);
  std::vector<LevelTerm> tail = step_rows(x, s, "chunks ");
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].us += tail[i].us;
  return rows;
}

// Ranks that rank r meets first at each domain of its path (their lowest
// common domain with r), bottom-up.
struct Peers {
  int domain;
  int count;
  LevelCost cost;
};

Result<std::vector<Peers>> peers_of(const Ctx& x, int r) {
  std::vector<Peers> out;
  int below = 1;  // r itself
  for (int d : x.tree.path(r)) {
    const int here = static_cast<int>(x.tree.domain(d).members.size());
    if (here > below) {
      OSMP_ASSIGN_OR_RETURN(LevelCost c, level_cost(x.tree, d, x.cal));
      out.push_back({d, here - below, c});
    }
    below = here;
  }
  return out;
}

// The flat paths over the whole team (collectives/ops/flat.cpp), seen from
// rank r: one row per distance. `crowd`: the bandwidth share of a source read
// by every rank at once.
Result<std::vector<LevelTerm>> flat_rows(const Ctx& x, int r, double chunks, double block, double gamma_kib,
                                         double crowd) {
  OSMP_ASSIGN_OR_RETURN(std::vector<Peers> peers, peers_of(x, r));
  std::vector<LevelTerm> rows;
  for (const Peers& p : peers) {
    const double one = chunks * p.cost.alpha_us + wire_kib(block) * p.cost.beta_us_per_kib * crowd + gamma_kib;
    rows.push_back({"flat", x.tree.domain(p.domain).depth, x.tree.domain(p.domain).level, p.cost.level, 1, p.count,
                    "flat", p.count * block, p.count * one});
  }
  return rows;
}

// Large gather, allgather, scatter, reduce_scatter_block, alltoall, in outbox
// chunks. Gather and scatter: the root reads or writes every other rank's
// box. Allgather: each rank reads every other, starting with the next (no
// two read one box at once); alltoall the same, its block of every other's.
// Reduce-scatter: each rank reads a piece of every other's box, all in rank
// order, every step. The slowest rank counts. `single`: the heap's single
// copy (heap_rows) instead, one step with no outbox chunks.
Result<std::vector<LevelTerm>> flat_team(const Ctx& x, OpKind op, std::size_t block, bool single = false) {
  const double n = x.tree.size(), outbox = dbl(x.opt.slot_bytes);
  if (is_rooted(op)) {  // the flat path's rooted operations: gather, scatter
    return flat_rows(x, 0, single ? 1.0 : std::ceil(dbl(block) / outbox), dbl(block), 0, 1.0);
  }
  const bool rs = is_reduction(op);  // the flat path's only reduction: reduce_scatter_block
  // Reduce-scatter and alltoall, whose input holds a block per rank: a
  // piece of every block per step.
  const bool every_block = describe(op).buffers.send.other == Amount::all;
  const double chunks = single ? 1.0 : std::ceil(dbl(block) * (every_block ? n : 1.0) / outbox);
  const double gamma = rs ? kib(dbl(block)) * x.cal.gamma_us_per_kib : 0.0;
  const double crowd = rs ? x.crowd(x.tree.size() - 1) : 1.0;
  std::vector<LevelTerm> worst;
  for (int r = 0; r < x.tree.size(); ++r) {
    OSMP_ASSIGN_OR_RETURN(auto rows, flat_rows(x, r, chunks, dbl(block), gamma, crowd));
    if (worst.empty() || sum_us(rows) > sum_us(worst)) worst = std::move(rows);
  }
  if (rs && !worst.empty()) {  // every step, all ranks collide on rank 0's flag first
    OSMP_ASSIGN_OR_RETURN(LevelCost top, level_cost(x.tree, 0, x.cal));
    worst.back().us += chunks * (crowd - 1) * top.alpha_us;
  }
  return worst;
}

// CMA's single copy after the header step (ops/cma.cpp), on the busiest
// rank, from the description: a rooted operation's ranks each copy their
// block to or from the root's buffer at once (bcast: parts of it), sharing
// its memory; the others read a block of every peer in turn (allgather,
// alltoall; reduce_scatter(_block) its block of every peer's input,
// combined); allreduce its share of every input, combined, then the
// others' shares of the result; exscan of two ranks one read. Then the
// copiers' flags: one hand-off at the top.
Result<std::vector<LevelTerm>> cma_rows(const Ctx& x, OpKind op, std::size_t m) {
  const double n = x.tree.size(), block = dbl(m);
  double calls = n - 1, share = block, crowd = 1.0, combined = 0;
  if (describe(op).copies.cma == CmaPath::two_ranks) {
    calls = 1;
  } else if (is_rooted(op)) {
    calls = 1;
    crowd = x.crowd(x.tree.size() - 1);
  } else if (is_reduction(op)) {
    const bool blocks = describe(op).buffers.send.other == Amount::all;  // a block of the input per rank
    share = blocks ? block : block / n;
    combined = (n - 1) * share;
    if (!blocks) calls = 2 * (n - 1);  // allreduce: the shares of the result too
  }
  OSMP_ASSIGN_OR_RETURN(LevelCost top, level_cost(x.tree, 0, x.cal));
  const double bytes = calls * share;
  const double us = calls * x.cal.cma_call_us + kib(bytes) * x.cal.cma_us_per_kib * crowd +
                    kib(combined) * x.cal.gamma_us_per_kib + top.alpha_us;
  const Domain& root = x.tree.root();
  return std::vector<LevelTerm>{{"cma", root.depth, root.level, top.level, 1, x.tree.size(), "cma", bytes, us}};
}

// The heap's single copy (ops/direct.cpp), where every buffer it needs lies
// in the heaps: each byte crosses once, from the rank it is read from, as
// the flat path's rows in one step with no outbox chunks (every rank's
// offers are read after the header step; the copiers' flags end it).
Result<std::vector<LevelTerm>> heap_rows(const Ctx& x, OpKind op, std::size_t m) {
  OSMP_ASSIGN_OR_RETURN(std::vector<LevelTerm> rows, flat_team(x, op, m, true));
  for (LevelTerm& t : rows) t.phase = t.base = "heap";
  return rows;
}

// Large scan and exscan along the chain of ranks (ops/scan.cpp), in outbox
// chunks: each hop reads a chunk from the rank before, combines and hands it
// on; the chunks pipeline, so the first chunk crosses every hop and each
// later one adds its own time at the last hop. Every hop is costed at the
// top's level (the slowest a hop between neighbours can be).
Result<std::vector<LevelTerm>> chain_rows(const Ctx& x, std::size_t bytes) {
  OSMP_ASSIGN_OR_RETURN(LevelCost top, level_cost(x.tree, 0, x.cal));
  const std::size_t outbox = std::max<std::size_t>(1, x.opt.slot_bytes);
  auto hop = [&](double b) {
    return top.alpha_us + wire_kib(b) * top.beta_us_per_kib + kib(b) * x.cal.gamma_us_per_kib;
  };
  const std::size_t chunks = std::max<std::size_t>(1, (bytes + outbox - 1) / outbox);
  const double first = dbl(std::min(bytes, outbox)), last = dbl(bytes - (chunks - 1) * outbox);
  double us = (x.tree.size() - 1) * hop(first);
  if (chunks >= 2) us += dbl(chunks - 2) * hop(dbl(outbox)) + hop(last);
  const Domain& root = x.tree.root();
  return std::vector<LevelTerm>{
      {"chain", root.depth, root.level, top.level, 1, x.tree.size(), "chain", dbl(bytes), us}};
}

// What a step of `op` moves, `m` bytes per rank (gathers, scatters: the
// block), when it carries the data (its description's StepShape); `plan`
// says how the groups run it.
Step moves(const Ctx& x, OpKind op, double m, const StepPlan& plan) {
  const StepShape& shape = describe(op).plan.step;
  const auto times = [&](Times t) { return t == Times::zero ? 0.0 : t == Times::one ? m : x.tree.size() * m; };
  return Step{shape.up, times(shape.up_m), shape.down, times(shape.down_m), plan};
}

// The pairs' operation (alltoallv) after its first step, `exchange` the
// rows of the exchange (`how`: the flat path's or CMA's): where
// the first step carried the counts rows (pairs_in_first), the exchange
// unless the blocks rode with them; else the counts step through the
// outboxes (agree_pairs: every rank reads every other's row; a second
// round beyond kPairsAllRowsMax ranks), which carries the blocks where
// they fit the outbox and CMA would not take them, and the exchange after
// it where they do not.
Result<std::vector<LevelTerm>> pairs_rest(const Ctx& x, OpKind op, std::size_t m, const Plan& plan,
                                          std::vector<LevelTerm> exchange, const std::string& how, std::string& path) {
  const int n = x.tree.size();
  const std::size_t others = m * static_cast<std::size_t>(n - 1);
  if (pairs_in_first(op, plan)) {
    path = cat("counts rows + ", how);
    return exchange;
  }
  const bool rides = pairs_blocks_at(n) + others <= x.opt.slot_bytes && m < cma_from(op, x.settings);
  const double rounds = n > kPairsAllRowsMax ? 2.0 : 1.0;
  path = rides ? "header step + counts step (the blocks with it)" : cat("header step + counts step + ", how);
  // Riding, the exchange's one step is the counts step: only a findings
  // step (beyond kPairsAllRowsMax) comes on top.
  const double extra = rounds - (rides ? 1.0 : 0.0);
  if (extra == 0.0) return exchange;
  OSMP_ASSIGN_OR_RETURN(std::vector<LevelTerm> agree, flat_rows(x, 0, extra, 0.0, 0.0, 1.0));
  for (LevelTerm& t : agree) t.phase = "counts";
  exchange.insert(exchange.begin(), agree.begin(), agree.end());
  return exchange;
}

// What follows the header step when the data does not fit it: as the plan says.
Result<std::vector<LevelTerm>> rest_of(const Ctx& x, OpKind op, std::size_t m, const Plan& plan, std::string& path) {
  const char* first = lengths_step(op) ? "lengths step + " : "header step + ";
  if (plan.heap && x.opt.in_heap) {
    path = cat(first, "heap single copy");
    return heap_rows(x, op, m);
  }
  // Gatherv, scatterv and alltoallv after their counts step, as their
  // uniform operation with every block `m` bytes: CMA where the plan's rule
  // takes it for the longest block (carried_by_cma).
  const bool by_cma = plan.rest == Rest::cma || (describe(op).copies.cma == CmaPath::after_counts &&
                                                 plan.rest == Rest::flat && cma_carries(op, m, x.settings));
  const std::string how = by_cma ? "CMA single copy" : "flat over the team";
  if (by_cma || plan.rest == Rest::flat) {
    path = cat(first, how);
    if (!by_cma && one_pass_prefix(op)) return chain_rows(x, m);  // scan, exscan: the chain of ranks
    OSMP_ASSIGN_OR_RETURN(std::vector<LevelTerm> rows,
                          by_cma ? cma_rows(x, uniform_of(op), m) : flat_team(x, uniform_of(op), m));
    // alltoallv with its counts step before (pairs_rest)
    if (describe(op).plan.counts == Counts::pairs) return pairs_rest(x, op, m, plan, std::move(rows), how, path);
    return rows;
  }
  const Step chunk = moves(x, op, 0, plan.chunk);
  if (plan.chunk.up && plan.chunk.down) {
    path = cat("header step + ", plan.chunks, " chunk round trips");
    return round_trips(x, chunk, m, plan.chunk_bytes);
  }
  path = cat("header step + ", plan.chunks, " pipelined chunks");
  return pipeline(x, chunk, m, plan.chunk_bytes);
}

}  // namespace

Result<LevelCost> level_cost(const Tree& tree, int domain, const Calibration& cal) {
  int d = domain;
  while (d >= 0 && tree.domain(d).is_virtual) d = tree.domain(d).parent;
  for (; d >= 0; d = tree.domain(d).parent) {
    const auto& aliases = tree.domain(d).aliases;  // top-down
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& alias : std::ranges::reverse_view(aliases)) {
        if (is_cache(alias.name) != (pass == 0)) continue;
        if (const LevelCost* c = cal.find(alias.name)) return *c;
      }
    }
  }
  return Status(Errc::not_found, cat("no cost for level ", tree.domain(domain).level,
                                     " or any level above it in the calibration (", cal.source, ")"));
}

PlanSettings model_settings(const CollectiveConfig& config, const Tree& tree) {
  PlanSettings s = PlanSettings::of(config, tree);
  // The one-pass steps down and up are priced (step_rows); scan's prefix top
  // and gatherv's and scatterv's rows are not: their strict plan stands in.
  s.one_group = false;
  // OSMP_CMA=auto is taken as paying: its probe times this host, and the
  // model stands for the machine of the tree, whose CMA the calibration prices.
  s.cma = config.cma != CollectiveConfig::Cma::off;
  return s;
}

Result<Prediction> predict(const Tree& tree, const Calibration& cal, const CollectiveConfig& config, OpKind op,
                           std::size_t bytes, const ModelOptions& options) {
  Prediction p;
  p.op = op;
  p.bytes = bytes;
  if (tree.size() <= 1) {
    p.path = "team of one: local copies only";
    return p;
  }
  OSMP_ASSIGN_OR_RETURN(Ctx x, make_ctx(tree, cal, config, options));
  if (x.groups.empty() || x.top().domain != 0) {
    return Status(Errc::internal, "predict: the root domain of a tree of two or more ranks has no group");
  }
  // allgatherv, reduce_scatter: as if every rank passed (had) `bytes`.
  const Plan plan = make_plan(uniform_input(op, bytes, 1, tree.size()), x.shape, x.settings);
  if (plan.rest == Rest::none) {
    p.path = plan.first.one_pass ? (plan.first.up ? "one pass up" : "one pass down") : "one step";
    p.terms = step_rows(x, moves(x, op, dbl(bytes), plan.first), "");
  } else {
    // Gatherv's and scatterv's first step gathers every rank's length up
    // and sends the longest down (lengths_step); the others' only headers.
    // Their rows carry the blocks too where lengths_data_bytes says so (a
    // fixed length, or packed: as long as the blocks), and blocks that fit
    // them are done in that step.
    // Alltoallv's first step carries every rank's counts row where
    // pairs_in_first says so, with its blocks where they fit.
    const std::size_t data = lengths_data_bytes(plan);
    const double row = static_cast<double>(kLengthsRowBytes + (plan.lengths_packed ? std::min(bytes, data) : data));
    const bool pairs = pairs_in_first(op, plan);
    const std::size_t others = bytes * static_cast<std::size_t>(tree.size() - 1);
    const bool pairs_ride = pairs && others <= pairs_first_cap(tree.size());
    const double pairs_row = dbl(pairs_blocks_at(tree.size()) + (pairs_ride ? others : 0));
    p.terms = lengths_step(op) ? step_rows(x, Step{Up::gather, row, Down::same, row, plan.first}, "lengths ")
              : pairs          ? step_rows(x, Step{Up::gather, pairs_row, Down::flags, 0, plan.first}, "counts ")
                               : step_rows(x, Step{Up::flags, 0, Down::flags, 0, plan.first}, "header ");
    if (lengths_step(op) && bytes <= data) {
      p.path = "lengths step (the blocks with it)";
    } else if (pairs_ride) {
      p.path = "counts rows (the blocks with them)";
    } else {
      OSMP_ASSIGN_OR_RETURN(auto rest, rest_of(x, op, bytes, plan, p.path));
      p.terms.insert(p.terms.end(), rest.begin(), rest.end());
    }
  }
  p.us = sum_us(p.terms);
  return p;
}

Calibration default_calibration(const MachineTree& machine) {
  Calibration cal;
  for (const std::string& level : machine.level_names()) cal.levels.push_back(typical_level_cost(level));
  cal.gamma_us_per_kib = kTypicalGammaUsPerKib;
  cal.source = "typical figures (not measured)";
  return cal;
}

}  // namespace osmp
