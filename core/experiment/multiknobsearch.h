#pragma once

#include "experiment/gaussianprocess.h"
#include "experiment/searchprobe.h"
#include "spec/searchspec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// Where a search over several knobs stands.
struct MultiSearchResult {
    std::optional<std::size_t> top; ///< the highest-scoring feasible probe
    std::optional<std::size_t> recommended; ///< the cheapest probe on the top's plateau
    std::vector<std::size_t> plateau; ///< probes on the plateau (the top included), cheapest first
    std::vector<SearchProbe> probes;
    QString stop; ///< "budget", "converged", "exhausted" (or "stopped", set by the driver)
};

/// The search over two or more knobs (docs/experiments.md, "Search over
/// several knobs"). Pure: next() is a function of the probes so far, so
/// tests drive it without a server, and a replay of the same figures chooses
/// the same points.
///
/// Bayesian optimisation with a small Gaussian process, because the knobs of a
/// batching engine interact: on knobscope-sim, and on vLLM, more sequences only
/// pay off with a larger prefill budget, so the good region is a diagonal ridge
/// with a cliff beside it that a search along one knob at a time steps off.
/// 1. A space-filling start: 2 x knobs + 1 points of a Halton sequence in the
///    inner 80 % of the range (on each knob's scale), at most half the budget.
/// 2. The top: the point of a lattice over the range (33 values a knob up to
///    three knobs, 4096 Halton points beyond) with the largest expected
///    improvement over the best probe, times the likelihood that it is not past
///    a cliff. The improvement is under a process fitted to the log objective
///    (rates: log; latencies: -log) of the probes within half the best, each
///    probe's noise from its interval; the likelihood under a second process
///    fitted to +1 (within half the best) and -1 (past it, or infeasible).
///    Only points inside a trust region around the top compete (see trustRegion()).
/// 3. The cheap edge, once a quarter of the budget is left (or sooner, once no
///    point is expected to improve the top by 0.2 %): the point that maximises
///    the cost saved against the recommendation times its likelihood of being
///    on the plateau, among points at least even odds to be. Then step 2 again.
/// Cost: each knob's place in its range on its scale, 0 at its cheaper end,
/// summed. No point is probed twice.
class MultiKnobSearch {
public:
    explicit MultiKnobSearch(SearchSpec spec);

    /// The next point to probe, or none when the search is done (stopReason() says why).
    std::optional<std::vector<double>> next() const;
    void addProbe(SearchProbe probe);
    const std::vector<SearchProbe>& probes() const { return m_probes; }
    QString stopReason() const;
    MultiSearchResult result() const;
    /// The closing `search` line (docs/formats.md, "Search over several knobs").
    nlohmann::json line(const QString& stop = {}) const;
    /// The `search_probe` line of probe `i`.
    nlohmann::json probeLine(std::size_t i) const;

    double cost(const std::vector<double>& point) const;

private:
    enum class Step { Start, Top, Edge, Done };
    struct Choice {
        Step step = Step::Done;
        std::optional<std::vector<double>> point;
        QString stop;
    };
    Choice choose() const;
    std::vector<double> toUnit(const std::vector<double>& point) const;
    std::vector<double> fromUnit(const std::vector<double>& unit) const;
    bool probed(const std::vector<double>& point) const;
    /// The lattice of candidate points, as values, without the probed ones.
    std::vector<std::vector<double>> candidates() const;
    /// The log-objective each probe stands for (higher is better), with its noise variance.
    void observations(std::vector<double>& y, std::vector<double>& noise) const;
    std::optional<std::size_t> topIndex() const;
    std::optional<std::size_t> cheapestOnPlateau(std::size_t top) const;
    /// The trust region's half-side on the unit scale, from the probes after the first `start`.
    double trustRegion(int start) const;

    SearchSpec m_spec;
    std::vector<SearchProbe> m_probes;
    std::vector<std::vector<double>> m_lattice; ///< every candidate point, as values
};

} // namespace ks
