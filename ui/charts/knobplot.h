#pragma once

#include "charts/exportablechart.h"
#include "compare/knobresponse.h"

#include <QWidget>

class QCustomPlot;
class QCPTextElement;

namespace ks {

/// What one knob does: the chosen metric against the knob's value, one line
/// per arm (and per value of any other knob that varies) with its 95 %
/// interval as a band, the SLO as a horizontal line. A numeric knob whose
/// values span more than 8x gets a log axis; a categorical knob (or the model)
/// gets grouped bars with interval whiskers. Points come from the core's
/// knobResponse(), so chart and `compare` agree.
class KnobPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit KnobPlot(QWidget* parent = nullptr);

    void setResponse(const QString& title, const KnobResponse& response);
    const KnobResponse& response() const { return m_response; }
    void replot();

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    void rebuild();
    void drawLines();
    void drawBars();
    void drawSlo();

    QCustomPlot* m_plot;
    QCPTextElement* m_heading;
    QCPTextElement* m_leftOut; ///< below the legend: what is not drawn, and why
    KnobResponse m_response;
};

} // namespace ks
