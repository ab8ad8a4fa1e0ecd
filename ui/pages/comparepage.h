#pragma once

#include "compare/comparisontypes.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace ks {

class BarChart;
class CdfPlot;
class KneePlot;
class KnobRangePanel;
class CompareTableModel;
class RunFileLoader;
struct LoadedRunFile;

/// The Compare page: for the chosen arm, every configuration side by side
/// (grouped bars at p50/p95/p99, overlaid CDFs, and the core's comparison
/// table with ratios, 95 % intervals and significance against a baseline).
/// Every number comes from the core's compareRuns(); nothing is recomputed here
/// except the CDF curves, which are the raw per-request values.
class ComparePage : public QWidget {
    Q_OBJECT
public:
    ComparePage(RunFileLoader* loader, QWidget* parent = nullptr);

    /// The comparison shown (null before the first).
    std::shared_ptr<const LoadedRunFile> result() const { return m_result; }
    void setResult(std::shared_ptr<const LoadedRunFile> result);
    void selectArm(const QString& arm);
    /// ttft_ms, tpot_ms, itl_ms, e2e_ms, throughput; reasoning, tool-calls, itl-no-tools where the file has them
    void selectMetric(const QString& key);

    /// The chart layer's exports (charts/comparecharts.h, report/comparereport.h, report/htmlreport.h) for
    /// the file shown. Writes one chart: `chart` is ttft|tpot|itl|e2e|throughput|reasoning|tool-calls|itl-no-tools
    /// (bars), cdf-ttft|cdf-tpot|...|cdf-itl-no-tools, or knee (a sweep arm, or any of its steps).
    bool exportChart(
        const QString& chart, const QString& arm, const QString& path, const QSize& size, QString* error) const;
    /// Every chart of every arm (PNG and SVG), the tables (CSV, Markdown) and an index.md.
    bool exportReport(const QString& directory, QString* error) const;
    /// The same report as one self-contained HTML file (htmlreport.h).
    bool exportHtmlReport(const QString& path, QString* error) const;
    bool exportTable(const QString& path, QString* error) const;
    QStringList arms() const;
    BarChart* bars() const { return m_bars; }
    CdfPlot* cdf() const { return m_cdf; }
    KneePlot* knee() const { return m_knee; }
    CompareTableModel* table() const { return m_model; }
    /// The lines under the table: how each configuration's intervals were made.
    QString intervalsText() const;
    /// The knob-response and Pareto charts (a tab, shown when a knob varies or there are 2+ points).
    KnobRangePanel* knobRange() const { return m_range; }
    /// Brings the Knob range tab to the front (when the file has one).
    void showKnobRange();

private:
    void refresh();
    void showMetric(const QString& arm, const QString& key);
    /// Fills the knee chart from a sweep arm's entry; false when `arm` is no sweep (nor a step of one).
    bool showKnee(const QString& arm);
    void showIntervals(const ComparedArm& arm, const QStringList& baselineRows = {});

    RunFileLoader* m_loader;
    std::shared_ptr<const LoadedRunFile> m_result;
    QComboBox* m_arm;
    QComboBox* m_baseline;
    QComboBox* m_metric;
    QLabel* m_note;
    QLabel* m_warning;
    QLabel* m_why; ///< why each configuration differs from the baseline (compare/diagnosis.h)
    QLabel* m_search; ///< a search's best value and plateau, when the file has one
    QLabel* m_intervals; ///< under the table: how each configuration's intervals were made
    BarChart* m_bars;
    CdfPlot* m_cdf;
    KneePlot* m_knee;
    KnobRangePanel* m_range;
    QTabWidget* m_tabs;
    QWidget* m_whyArea = nullptr; ///< m_why's scroll area, hidden with nothing to say
    CompareTableModel* m_model;
    QTableView* m_tableView;
    bool m_filling = false;
};

} // namespace ks
