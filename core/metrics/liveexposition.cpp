#include "metrics/liveexposition.h"

#include "metrics/runsummary.h"

#include <algorithm>

namespace ks {

namespace {

// The bucket edges of vLLM's own request histograms (vllm:time_to_first_token_seconds,
// vllm:time_per_output_token_seconds / inter_token_latency_seconds, vllm:e2e_request_latency_seconds),
// so a dashboard can put the client's histogram next to the server's.
const std::vector<double> kTtftEdges { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
    7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0 };
const std::vector<double> kTokenEdges { 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
    7.5, 10.0, 20.0, 40.0, 80.0 };
const std::vector<double> kE2eEdges { 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
    120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0 };

LiveHistogram histogram(const std::vector<double>& edges)
{
    LiveHistogram h;
    h.edges = edges;
    h.counts.assign(edges.size() + 1, 0);
    return h;
}

QByteArray escapeLabel(const QString& value)
{
    QByteArray out;
    for (const char c : value.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray number(double v)
{
    return QByteArray::number(v, 'g', 12);
}

class Writer {
public:
    explicit Writer(const std::vector<std::pair<QString, QString>>& constant)
    {
        for (const auto& [name, value] : constant)
            m_constant += ',' + name.toUtf8() + "=\"" + escapeLabel(value) + '"';
    }
    void family(const char* name, const char* type, const char* help)
    {
        m_text += QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
    }
    void sample(const QByteArray& name, const QByteArray& labels, const QByteArray& value)
    {
        QByteArray all = labels + m_constant;
        if (all.startsWith(','))
            all.remove(0, 1);
        m_text += name + (all.isEmpty() ? QByteArray() : '{' + all + '}') + ' ' + value + '\n';
    }
    void histogram(const QByteArray& name, const QByteArray& labels, const LiveHistogram& h)
    {
        quint64 cumulative = 0;
        for (std::size_t i = 0; i <= h.edges.size(); ++i) {
            cumulative += h.counts[i];
            const QByteArray le = i < h.edges.size() ? number(h.edges[i]) : QByteArray("+Inf");
            sample(name + "_bucket", labels + ",le=\"" + le + '"', QByteArray::number(cumulative));
        }
        sample(name + "_sum", labels, number(h.sum));
        sample(name + "_count", labels, QByteArray::number(h.count));
    }
    QByteArray text() const { return m_text; }

private:
    QByteArray m_text;
    QByteArray m_constant;
};

} // namespace

void LiveHistogram::observe(double value)
{
    const auto bucket = std::lower_bound(edges.begin(), edges.end(), value); // le: value <= edge
    ++counts[std::size_t(bucket - edges.begin())];
    sum += value;
    ++count;
}

LiveExposition::RunSeries& LiveExposition::series(const QString& run)
{
    for (auto& [name, s] : m_runs) {
        if (name == run)
            return s;
    }
    RunSeries s;
    s.ttft = histogram(kTtftEdges);
    s.tpot = histogram(kTokenEdges);
    s.itl = histogram(kTokenEdges);
    s.e2e = histogram(kE2eEdges);
    s.scheduleLag = histogram(kTtftEdges);
    m_runs.emplace_back(run, std::move(s));
    return m_runs.back().second;
}

void LiveExposition::addRecords(const QString& run, const QVector<RequestRecord>& records)
{
    RunSeries& s = series(run);
    for (const RequestRecord& r : records) {
        if (r.warmup)
            continue;
        if (!r.ok) {
            ++s.errors;
            ++s.errorsByReason[r.error.isEmpty() ? QStringLiteral("unknown") : r.error];
            continue;
        }
        ++s.ok;
        s.scheduleLag.observe(double(std::max<qint64>(0, r.scheduleLagUs())) / 1e6);
        if (r.ttftUs >= 0)
            s.ttft.observe(double(r.ttftUs) / 1e6);
        if (r.e2eUs >= 0)
            s.e2e.observe(double(r.e2eUs) / 1e6);
        if (const double tpot = r.tpotUs(); tpot >= 0)
            s.tpot.observe(tpot / 1e6);
        for (const std::int32_t gap : r.itlUs)
            s.itl.observe(double(gap) / 1e6);
    }
}

void LiveExposition::setInFlight(const QString& run, int inFlight)
{
    series(run).inFlight = inFlight;
}

void LiveExposition::setClientBound(const QString& run, bool bound)
{
    RunSeries& s = series(run);
    s.clientBound = bound ? 1 : 0;
    s.inFlight = 0;
}

void LiveExposition::setClientCpu(double utilisation)
{
    m_clientCpu = utilisation;
}

QByteArray LiveExposition::render() const
{
    Writer w(m_constant);
    auto each = [&](const char* name, const char* type, const char* help, auto&& write) {
        w.family(name, type, help);
        for (const auto& [run, s] : m_runs)
            write(QByteArray(name), "run=\"" + escapeLabel(run) + '"', s);
    };
    each("knobscope_time_to_first_token_seconds", "histogram", "Client-measured TTFT of completed requests.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) { w.histogram(n, l, s.ttft); });
    each("knobscope_time_per_output_token_seconds", "histogram", "Client-measured TPOT of completed requests.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) { w.histogram(n, l, s.tpot); });
    each("knobscope_inter_token_latency_seconds", "histogram", "Gaps between token-carrying events.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) { w.histogram(n, l, s.itl); });
    each("knobscope_e2e_request_latency_seconds", "histogram", "Client-measured end-to-end latency.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) { w.histogram(n, l, s.e2e); });
    each("knobscope_schedule_lag_seconds", "histogram", "Actual send minus intended send (rate mode).",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) { w.histogram(n, l, s.scheduleLag); });
    each("knobscope_requests_total", "counter", "Finished non-warm-up requests by outcome.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) {
            w.sample(n, l + ",outcome=\"ok\"", QByteArray::number(s.ok));
            w.sample(n, l + ",outcome=\"error\"", QByteArray::number(s.errors));
        });
    each("knobscope_request_errors_total", "counter", "Failed requests by reason.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) {
            for (const auto& [reason, count] : s.errorsByReason)
                w.sample(n, l + ",reason=\"" + escapeLabel(reason) + '"', QByteArray::number(count));
        });
    each("knobscope_requests_in_flight", "gauge", "Requests sent and not finished, as of the latest records.",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) {
            w.sample(n, l, QByteArray::number(s.inFlight));
        });
    each("knobscope_client_bound", "gauge",
        "1 when the client limited the measurement (the summary's guard once the arm ended; CPU alone before).",
        [&](const QByteArray& n, const QByteArray& l, const RunSeries& s) {
            const bool running = &s == &m_runs.back().second && s.clientBound < 0;
            if (running && m_clientCpu >= 0)
                w.sample(n, l, m_clientCpu > kClientBoundCpu ? "1" : "0");
            else if (s.clientBound >= 0)
                w.sample(n, l, QByteArray::number(s.clientBound));
        });
    if (m_clientCpu >= 0) {
        w.family(
            "knobscope_client_cpu_utilisation", "gauge", "Process CPU since the previous scrape, share of all cores.");
        w.sample("knobscope_client_cpu_utilisation", {}, number(m_clientCpu));
    }
    return w.text();
}

} // namespace ks
