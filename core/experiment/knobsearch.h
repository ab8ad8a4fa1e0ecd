#pragma once

#include "spec/searchspec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// One probe of a search: the knob's value and what its objective read.
struct SearchProbe {
    double value = 0;
    std::optional<double> objective; ///< none: the probe gave no figure (no completions, no capacity)
    double low = 0, high = 0; ///< its 95 % interval
    bool feasible = true; ///< false: no figure, or a latency objective beyond the spec's SLO
    QString label; ///< the probe's configuration label
    QString why; ///< why infeasible, empty otherwise
};

/// Where a search stands: the best probe, the values it cannot be told from,
/// and every probe in the order run.
struct SearchResult {
    std::optional<std::size_t> best; ///< index into probes; none when no probe is feasible
    double plateauLow = 0, plateauHigh = 0; ///< the smallest and largest value within the best's interval
    std::vector<SearchProbe> probes;
    QString stop; ///< why it stopped: "budget", "converged", "exhausted" or "stopped"
};

/// The adaptive search over one knob (docs/experiments.md, "Search"). Pure:
/// it sees only the probes so far, so tests drive it without a server.
///
/// The first two probes are golden-section points of the range on its scale
/// (38.2 % and 61.8 %). After that the best probe's neighbours decide: a
/// probed neighbour whose 95 % interval does not overlap the best's leaves a
/// gap that the next probe bisects (on the scale); an end of the range with
/// no probe between it and the best is probed itself (it brackets the range).
/// The wider such gap goes first. It stops when the budget is spent, when the
/// best's interval overlaps both neighbours' (or the best sits at an end: no
/// further probe could tell them apart), or when no unprobed value is left in
/// those gaps (integer knobs). No value is probed twice.
/// Infeasible probes rank below every feasible one.
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
    static bool overlap(const SearchProbe& a, const SearchProbe& b);

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

    SearchSpec m_spec;
    std::vector<SearchProbe> m_probes;
};

} // namespace ks
