#include "metrics/aggregator.h"

#include <algorithm>

namespace ks {

Aggregator::Aggregator(double windowS)
    : m_windowUs(qint64(windowS * 1e6))
{
}

void Aggregator::add(const RequestRecord& r)
{
    if (r.warmup)
        return;
    ++m_counts.done;
    if (!r.ok) {
        ++m_counts.errors;
        ++m_counts.errorsByReason[r.error];
        return;
    }
    ++m_counts.ok;
    Completed c { r.tSendUs + r.e2eUs, r.ttftUs >= 0 ? double(r.ttftUs) / 1000.0 : -1, r.tpotUs() / 1000.0, r.outTokens,
        {} };
    c.itlMs.reserve(r.itlUs.size());
    for (std::int32_t gap : r.itlUs)
        c.itlMs.push_back(double(gap) / 1000.0);
    if (c.ttftMs >= 0)
        m_ttft.add(c.ttftMs);
    if (c.tpotMs >= 0)
        m_tpot.add(c.tpotMs);
    for (double gap : c.itlMs)
        m_itl.add(gap);
    // Records arrive nearly in completion order: insert from the back.
    auto pos = m_window.end();
    while (pos != m_window.begin() && std::prev(pos)->endUs > c.endUs)
        --pos;
    m_window.insert(pos, std::move(c));
}

RunSnapshot Aggregator::snapshot(qint64 nowUs)
{
    while (!m_window.empty() && m_window.front().endUs <= nowUs - m_windowUs)
        m_window.pop_front();

    RunSnapshot s = m_counts;
    s.atS = double(nowUs) / 1e6;
    s.ttftMs = m_ttft.summary();
    s.tpotMs = m_tpot.summary();
    s.itlMs = m_itl.summary();

    std::vector<double>& ttft = m_windowTtft;
    std::vector<double>& tpot = m_windowTpot;
    std::vector<double>& itl = m_windowItl;
    ttft.clear();
    tpot.clear();
    itl.clear();
    double tokens = 0;
    int inWindow = 0;
    for (const Completed& c : m_window) {
        if (c.endUs > nowUs)
            continue; // not yet completed at this instant (replay scrubbing back)
        ++inWindow;
        tokens += c.outTokens;
        if (c.ttftMs >= 0)
            ttft.push_back(c.ttftMs);
        if (c.tpotMs >= 0)
            tpot.push_back(c.tpotMs);
        itl.insert(itl.end(), c.itlMs.begin(), c.itlMs.end());
    }
    s.ttftWindowMs = summarizeBySelection(ttft);
    s.tpotWindowMs = summarizeBySelection(tpot);
    s.itlWindowMs = summarizeBySelection(itl);
    const double spanS = std::min(double(m_windowUs), double(std::max<qint64>(nowUs, 1))) / 1e6;
    s.windowReqPerS = inWindow / spanS;
    s.windowOutTokPerS = tokens / spanS;
    return s;
}

} // namespace ks
