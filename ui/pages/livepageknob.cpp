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
    const QStringList knobs = soFar.error.isEmpty() ? varyingKnobs(soFar.compare) : QStringList();
    KnobResponse response;
    QString error;
    if (knobs.isEmpty()
        || !knobResponse(soFar.compare, knobs.first(), QStringLiteral("ttft_ms.p99"), &response, &error)) {
        m_knob->hide(); // no knob varies yet among the finished arms
        return;
    }
    const QString name = soFar.file ? soFar.file->experimentName(tr("experiment")) : tr("experiment");
    m_knob->setResponse(
        tr("%1 · %2 against %3 (each finished arm)").arg(name, response.metricTitle, knobs.first()), response);
    m_knob->show();
}

void LivePage::revealKnobChart()
{
    if (m_knob->isVisible())
        m_chartScroll->ensureWidgetVisible(m_knob, 0, 0);
}

} // namespace ks
