#pragma once

#include "compare/searchsofar.h"

#include <QWidget>

#include <nlohmann/json.hpp>

namespace ks {

class HeatmapPlot;

/// The Live page's heatmap of a search over several knobs, growing a probe at a
/// time as each `search_probe` line arrives (live or replayed): the knobs'
/// ranges come from the experiment line's spec, the figures from the probes.
/// The highest-scoring probe so far is starred; the recommendation and the
/// plateau are the search's to say when it ends, from its closing line.
/// Hidden unless the experiment is such a search.
class LiveSearchPanel : public QWidget {
    Q_OBJECT
public:
    explicit LiveSearchPanel(QWidget* parent = nullptr);

    /// From the experiment's first line; hides the panel unless its spec searches several knobs.
    void setExperiment(const nlohmann::json& experimentLine);
    void addProbe(const nlohmann::json& line);
    /// The search's closing line: the heatmap then rings the recommendation and boxes the plateau.
    void finish(const nlohmann::json& searchLine);
    void clear();
    HeatmapPlot* plot() const { return m_plot; }
    /// The search line so far, as the heatmap reads it (compare/searchsofar.h).
    const nlohmann::json& soFar() const { return m_search.line(); }

private:
    void redraw();

    HeatmapPlot* m_plot;
    SearchSoFar m_search;
};

} // namespace ks
