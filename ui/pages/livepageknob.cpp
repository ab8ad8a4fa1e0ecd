// The Live page's knob-response chart: it follows the comparison of the
// experiment so far, which the loader recomputes as each arm finishes.
#include "livepage.h"

#include "charts/knobplot.h"
#include "compare/knobresponse.h"
#include "feeds/runfileloader.h"

#include <QScrollArea>

namespace ks {

void LivePage::showKnobRange(const LoadedRunFile& soFar)
{
    const KnobResponse& response = soFar.liveKnob; // computed with the comparison, off this thread
    if (response.knob.isEmpty() || response.series.empty()) {
        m_knob->hide(); // no knob varies yet among the finished arms
        return;
    }
    const QString name = soFar.file ? soFar.file->experimentName(tr("experiment")) : tr("experiment");
    m_knob->setResponse(
        tr("%1 · %2 against %3 (each finished arm)").arg(name, response.metricTitle, response.knob), response);
    m_knob->show();
}

void LivePage::revealKnobChart()
{
    if (m_knob->isVisible())
        m_chartScroll->ensureWidgetVisible(m_knob, 0, 0);
}

} // namespace ks
