#pragma once

#include "experiment/searchprobe.h"
#include "spec/searchspec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// Where a search stands: the highest-scoring probe, the plateau of probes
/// that are good enough beside it, the cheapest of them (the recommendation),
/// and every probe in the order run.
struct SearchResult {
    std::optional<std::size_t> best; ///< the highest-scoring probe; none when no probe is feasible
    std::optional<std::size_t> recommended; ///< the plateau's cheapest probe (the spec's `cheaper` end)
    std::vector<std::size_t> plateau; ///< probes on the plateau (best included), by value
    double plateauLow = 0, plateauHigh = 0; ///< the smallest and largest value on the plateau
    std::vector<SearchProbe> probes;
    QString stop; ///< why it stopped: "budget", "converged", "exhausted" or "stopped"
};

/// The adaptive search over one knob (docs/experiments.md, "Search"). Pure:
/// it sees only the probes so far, so tests drive it without a server.
///
/// The first two probes are golden-section points of the range on its scale
/// (38.2 % and 61.8 %). After that, first the top: the best probe's
/// neighbours decide. A probed neighbour that is not on the plateau leaves a
/// gap that the next probe bisects (on the scale); an end of the range with
/// no probe between it and the best is probed itself (it brackets the range).
/// The wider such gap goes first. Once both neighbours are on the plateau (or
/// the best sits at an end), the plateau's cheap edge: the gap between its
/// cheapest probe and the nearest cheaper probe off it (or the end of the
/// range) is bisected until it is narrower than 2 % of the range on the scale.
/// It stops when the budget is spent, when both are resolved ("converged"),
/// or when no unprobed value is left in those gaps (integer knobs). No value
/// is probed twice. Infeasible probes rank below every feasible one.
///
/// A probe is on the plateau when its objective is within the spec's
/// `tolerance` of the best's (a 0.5 % difference that a steady simulator
/// resolves statistically matters to nobody), or when the two cannot be told
/// apart: the difference is within the 95 % half-widths that face each other,
/// combined as sqrt(a^2 + b^2).
class KnobSearch {
public:
    explicit KnobSearch(SearchSpec spec);

    /// The next value to probe, or none when the search is done (stopReason() says why).
    std::optional<double> next() const;
    void addProbe(SearchProbe probe);
    const std::vector<SearchProbe>& probes() const { return m_probes; }
    /// "budget", "converged" or "exhausted" once next() returns none; empty before.
    QString stopReason() const;
    SearchResult result() const;
    /// The `search` line of the run file (docs/formats.md).
    nlohmann::json line(const QString& stop = {}) const;

    /// Whether `a` ranks above `b` (feasible first, then by objective).
    bool better(const SearchProbe& a, const SearchProbe& b) const;
    /// Whether `p` is good enough beside `best`: within the tolerance, or not told apart.
    bool onPlateau(const SearchProbe& p, const SearchProbe& best) const;

private:
    double toScale(double v) const;
    double fromScale(double u) const;
    /// The value to probe at scale point `u` strictly between values `lo` and
    /// `hi` (integer knobs rounded, the nearest unprobed one); none if there is none.
    std::optional<double> candidateBetween(double u, double lo, double hi) const;
    bool probed(double v) const;
    std::optional<std::size_t> bestIndex() const;
    struct Gap {
        double width = 0; ///< on the scale
        double value = 0;
    };
    /// The gaps beside the best probe that a probe could still resolve.
    std::vector<Gap> openGaps(bool* converged) const;
    /// The cheapest probe on the plateau of `best`.
    std::size_t cheapestOnPlateau(std::size_t best) const;
    /// The next probe towards the plateau's cheap edge; none once it is resolved.
    std::optional<double> edgeProbe() const;
    bool cheaper(double a, double b) const;

    SearchSpec m_spec;
    std::vector<SearchProbe> m_probes;
};

} // namespace ks
