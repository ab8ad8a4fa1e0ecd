#pragma once

#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// A search over several knobs as far as it has got: a `search` line (the
/// shape docs/formats.md gives it, "Search") put together from the experiment
/// line's spec and the `search_probe` lines so far, so searchHeatmap() can draw
/// it before the search's own closing line exists. The top so far is the best
/// feasible probe in the objective's direction; `best` and `plateau` are the
/// search's to say, and stay null until its closing line replaces this one.
class SearchSoFar {
public:
    /// From the experiment's first line. False (and nothing kept) unless its
    /// spec searches two knobs or more.
    bool start(const nlohmann::json& experimentLine);
    /// A `search_probe` line; ignored before start() and after finish().
    void addProbe(const nlohmann::json& probeLine);
    /// The search's closing line, taken when it names the same knobs as the
    /// spec; false for another search's line.
    bool finish(const nlohmann::json& searchLine);
    void clear();

    bool active() const { return m_line.is_object(); }
    bool ended() const { return m_ended; }
    /// The spec's `name` ("experiment" when it has none).
    const QString& experimentName() const { return m_name; }
    /// Why the search stopped, from its closing line ("?" when it does not say).
    QString stopReason() const;
    /// The `search` line so far: null before start().
    const nlohmann::json& line() const { return m_line; }

private:
    nlohmann::json m_line;
    QString m_name;
    bool m_ended = false;
};

} // namespace ks
