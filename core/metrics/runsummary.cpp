#include "metrics/runsummary.h"

#include "metrics/imagetally.h"
#include "metrics/percentiles.h"
#include "metrics/tracelateness.h"
#include "metrics/ttftsplit.h"

#include <QStringList>

#include <algorithm>
#include <map>

namespace ks {

namespace {

nlohmann::json objectOf(const PercentileSummary& s)
{
    return { { "p50", s.p50 }, { "p90", s.p90 }, { "p95", s.p95 }, { "p99", s.p99 }, { "max", s.max },
        { "mean", s.mean }, { "count", s.count } };
}

// By selection, not sorting: linear time (reorders `values`).
nlohmann::json percentileObject(std::vector<double>& values)
{
    if (values.empty())
        return nullptr;
    return objectOf(summarizeBySelection(values));
}

nlohmann::json itlObject(const std::vector<std::span<const std::int32_t>>& gaps)
{
    const PercentileSummary s = summarizeIntegers(gaps, 1000.0);
    return s.count > 0 ? objectOf(s) : nlohmann::json(nullptr);
}

// Per reason, the most common error details, so "transport 4" comes with "Connection refused".
constexpr std::size_t kDetailsPerReason = 3;
constexpr qsizetype kDetailChars = 160;

nlohmann::json topDetails(const std::map<std::string, std::map<std::string, int>>& detailsByReason)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [reason, details] : detailsByReason) {
        std::vector<std::pair<std::string, int>> sorted(details.begin(), details.end());
        std::stable_sort(
            sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        if (sorted.size() > kDetailsPerReason)
            sorted.resize(kDetailsPerReason);
        nlohmann::json list = nlohmann::json::array();
        for (const auto& [detail, count] : sorted)
            list.push_back({ { "detail", detail }, { "count", count } });
        out[reason] = list;
    }
    return out;
}

} // namespace

Slo experimentSlo(const nlohmann::json& experimentLine)
{
    Slo slo;
    if (!experimentLine.is_object())
        return slo;
    const auto spec = experimentLine.find("spec");
    if (spec == experimentLine.end() || !spec->is_object())
        return slo;
    const auto sloJson = spec->find("slo");
    if (sloJson == spec->end() || !sloJson->is_object())
        return slo;
    auto number = [&](const char* key) {
        const auto it = sloJson->find(key);
        return it != sloJson->end() && it->is_number() && it->get<double>() > 0 ? it->get<double>() : 0.0;
    };
    slo.ttftMs = number("ttft_ms");
    slo.tpotMs = number("tpot_ms");
    return slo;
}

namespace {

// One request as the summary reads it, from a live RequestRecord or a loaded row.
struct Facts {
    RequestTimes t;
    std::span<const std::int32_t> itl;
    const QString* error;
    const QString* errorDetail;
    const ServerTimings* timings; ///< nullptr: none
    int reasoningTokens = -1; ///< RequestRecord's reasoning and tool-call counts
    int answerTokens = -1;
    int toolCallEvents = 0;
    int toolCalls = 0;
    int images = 0;
    qint64 imageBytes = 0;
};

// Reasoning and tool calls over a run's ok requests: totals, and ITL over the
// gaps before each request's first tool-call delta. Absent when no request had any.
struct ReasoningTally {
    qint64 reasoning = 0, answer = 0, toolCallEvents = 0, toolCalls = 0;
    bool anyReasoning = false;
    std::vector<std::span<const std::int32_t>> itlNoTools;

    void add(const Facts& f)
    {
        if (f.reasoningTokens >= 0) {
            anyReasoning = true;
            reasoning += f.reasoningTokens;
            answer += std::max(0, f.answerTokens);
        }
        toolCallEvents += f.toolCallEvents;
        toolCalls += f.toolCalls;
        const auto before = std::size_t(RequestRecord::itlGapsBeforeTools(qsizetype(f.itl.size()), f.toolCallEvents));
        if (before > 0)
            itlNoTools.push_back(f.itl.first(before));
    }
    void write(nlohmann::json& s) const
    {
        if (anyReasoning) {
            s["reasoning_tokens"] = reasoning;
            s["answer_tokens"] = answer;
        }
        if (toolCallEvents > 0) {
            s["tool_call_events"] = toolCallEvents;
            s["tool_calls"] = toolCalls;
            s["itl_ms_no_tools"] = itlObject(itlNoTools);
        }
    }
};

const QString kNoText;

template <typename FactsAt>
nlohmann::json summarizeFacts(const QString& run, const QString& config, const QString& arm, std::size_t n, FactsAt at,
    const Slo& slo, const ClientLoad& client)
{
    std::vector<double> ttft, ttfc, tpot, e2e, lag, sendQueue;
    std::vector<std::span<const std::int32_t>> itl; // not copied: counted in place
    std::map<std::string, int> errorsByReason;
    std::map<std::string, std::map<std::string, int>> detailsByReason;
    int requests = 0;
    int ok = 0;
    int good = 0;
    qint64 firstSend = std::numeric_limits<qint64>::max();
    qint64 lastEnd = std::numeric_limits<qint64>::min();
    // For the sweep's "did the server keep up" test: the schedule's own rate
    // against the rate of completions, each over its own span, so neither the
    // drain after the last send nor Poisson's count noise looks like falling behind.
    qint64 firstSched = std::numeric_limits<qint64>::max();
    qint64 lastSched = std::numeric_limits<qint64>::min();
    qint64 firstEnd = std::numeric_limits<qint64>::max();
    double outTokens = 0;
    TtftSplitInput split;
    ReasoningTally tally;
    ImageTally images;
    for (std::size_t i = 0; i < n; ++i) {
        const Facts f = at(i);
        const RequestTimes& r = f.t;
        if (r.warmup)
            continue;
        ++requests;
        images.add(f.images, f.imageBytes);
        firstSend = std::min(firstSend, r.tSendUs);
        firstSched = std::min(firstSched, r.tSchedUs);
        lastSched = std::max(lastSched, r.tSchedUs);
        lag.push_back(double(r.tSendUs - r.tSchedUs) / 1000.0);
        if (r.tWireUs >= 0)
            sendQueue.push_back(double(r.tWireUs - r.tSendUs) / 1000.0);
        if (!r.ok) {
            const std::string reason = f.error->toStdString();
            ++errorsByReason[reason];
            if (!f.errorDetail->isEmpty())
                ++detailsByReason[reason][f.errorDetail->left(kDetailChars).toStdString()];
            continue;
        }
        ++ok;
        lastEnd = std::max(lastEnd, r.tSendUs + r.e2eUs);
        firstEnd = std::min(firstEnd, r.tSendUs + r.e2eUs);
        outTokens += r.outTokens;
        e2e.push_back(double(r.e2eUs) / 1000.0);
        if (r.ttftUs >= 0)
            ttft.push_back(double(r.ttftUs) / 1000.0);
        if (r.ttftUs >= 0 && r.tHeadersUs >= 0) {
            const double waitMs = double(r.tHeadersUs - r.tSendUs) / 1000.0;
            const double ttftMs = double(r.ttftUs) / 1000.0;
            if (f.timings && f.timings->promptMs >= 0) {
                split.queueMs.push_back(waitMs);
                split.prefillMs.push_back(f.timings->promptMs);
                split.restMs.push_back(ttftMs - waitMs - f.timings->promptMs);
            }
        }
        if (r.ttfcUs >= 0)
            ttfc.push_back(double(r.ttfcUs) / 1000.0);
        const double tpotMs = r.tpotUs() / 1000.0;
        if (tpotMs >= 0)
            tpot.push_back(tpotMs);
        tally.add(f);
        if (!f.itl.empty()) {
            // Adjacent rows of a loaded run are adjacent in its gap pool: one span for them all.
            if (!itl.empty() && itl.back().data() + itl.back().size() == f.itl.data())
                itl.back() = { itl.back().data(), itl.back().size() + f.itl.size() };
            else
                itl.push_back(f.itl);
        }
        const bool meetsTtft = slo.ttftMs <= 0 || (r.ttftUs >= 0 && double(r.ttftUs) / 1000.0 <= slo.ttftMs);
        const bool meetsTpot = slo.tpotMs <= 0 || tpotMs < 0 || tpotMs <= slo.tpotMs;
        good += meetsTtft && meetsTpot;
    }
    const double spanS = ok > 0 ? double(lastEnd - firstSend) / 1e6 : 0;
    nlohmann::json s = {
        { "run", run.toStdString() },
        { "config", config.toStdString() },
        { "arm", arm.toStdString() },
        { "requests", requests },
        { "ok", ok },
        { "errors", requests - ok },
        { "errors_by_reason", errorsByReason },
        { "error_details", topDetails(detailsByReason) },
        { "ttft_ms", percentileObject(ttft) },
        { "ttfc_ms", percentileObject(ttfc) },
        { "tpot_ms", percentileObject(tpot) },
        { "itl_ms", itlObject(itl) },
        { "e2e_ms", percentileObject(e2e) },
        { "schedule_lag_ms", percentileObject(lag) },
        { "send_queue_ms", percentileObject(sendQueue) },
        { "req_per_s", spanS > 0 ? ok / spanS : 0.0 },
        { "out_tok_per_s", spanS > 0 ? outTokens / spanS : 0.0 },
        { "goodput_req_per_s", spanS > 0 ? good / spanS : 0.0 },
        { "offered_req_per_s",
            requests > 1 && lastSched > firstSched ? (requests - 1) / (double(lastSched - firstSched) / 1e6) : 0.0 },
        { "completion_req_per_s", ok > 1 && lastEnd > firstEnd ? (ok - 1) / (double(lastEnd - firstEnd) / 1e6) : 0.0 },
    };
    tally.write(s);
    images.write(s);
    if (slo.any())
        s["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
    if (nlohmann::json t = ttftSplitFromRequests(split); !t.is_null())
        s["ttft_split_ms"] = std::move(t);
    nlohmann::json warnings = nlohmann::json::array();
    if (client.known())
        s["client"] = clientVerdict(client, warnings);
    if (!sendQueue.empty()) {
        const std::string warning = sendQueueWarning(percentile(sendQueue, 50), percentile(sendQueue, 99));
        if (!warning.empty())
            warnings.push_back(warning);
    }
    s["warnings"] = warnings;
    return s;
}

} // namespace

nlohmann::json summarizeRun(const QString& run, const QString& config, const QString& arm,
    const std::vector<RequestRecord>& records, const Slo& slo, const ClientLoad& client)
{
    return summarizeFacts(
        run, config, arm, records.size(),
        [&](std::size_t i) {
            const RequestRecord& r = records[i];
            return Facts { { r.tSchedUs, r.tSendUs, r.tWireUs, r.tHeadersUs, r.ttftUs, r.ttfcUs, r.e2eUs, r.outTokens,
                               r.ok, r.warmup },
                r.itlUs, &r.error, &r.errorDetail, r.server.any() ? &r.server : nullptr, r.reasoningTokens,
                r.answerTokens, r.toolCallEvents, r.toolCalls, r.images, r.imageBytes };
        },
        slo, client);
}

nlohmann::json summarizeRun(const QString& run, const QString& config, const QString& arm, const RequestTable& records,
    const Slo& slo, const ClientLoad& client)
{
    return summarizeFacts(
        run, config, arm, records.size(),
        [&](std::size_t i) {
            const RequestExtra* x = records.extra(i);
            return Facts { records.times(i), records.itl(i), x ? &x->error : &kNoText, x ? &x->errorDetail : &kNoText,
                records.timings(i), x ? x->reasoningTokens : -1, x ? x->answerTokens : -1, x ? x->toolCallEvents : 0,
                x ? x->toolCalls : 0, x ? x->images : 0, x ? x->imageBytes : 0 };
        },
        slo, client);
}

QStringList sloBounds(const nlohmann::json& slo)
{
    QStringList bounds;
    if (!slo.is_object())
        return bounds;
    for (const auto& [key, label] : { std::pair { "ttft_ms", "TTFT" }, std::pair { "tpot_ms", "TPOT" } }) {
        const auto it = slo.find(key);
        if (it != slo.end() && it->is_number() && it->get<double>() > 0)
            bounds << QStringLiteral("%1 <= %2 ms").arg(QLatin1String(label)).arg(it->get<double>());
    }
    return bounds;
}

QStringList sloBounds(const Slo& slo)
{
    return sloBounds(nlohmann::json { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } });
}

QString formatSummaryTable(const nlohmann::json& s)
{
    QStringList lines;
    lines << QStringLiteral("run %1: %2 requests, %3 ok, %4 errors")
                 .arg(QString::fromStdString(s.value("run", "")))
                 .arg(s.value("requests", 0))
                 .arg(s.value("ok", 0))
                 .arg(s.value("errors", 0));
    if (s.contains("errors_by_reason") && !s["errors_by_reason"].empty()) {
        QStringList parts;
        const nlohmann::json details = s.value("error_details", nlohmann::json::object());
        for (const auto& [reason, count] : s["errors_by_reason"].items()) {
            QString part = QStringLiteral("%1 %2").arg(QString::fromStdString(reason)).arg(count.get<int>());
            if (details.is_object() && details.contains(reason) && details[reason].is_array()
                && !details[reason].empty()) {
                QStringList shown;
                for (const auto& d : details[reason]) {
                    if (d.is_object() && d.contains("count") && d["count"].is_number_integer() && d.contains("detail")
                        && d["detail"].is_string())
                        shown << QStringLiteral("%1x %2")
                                     .arg(d["count"].get<int>())
                                     .arg(QString::fromStdString(d["detail"].get<std::string>()));
                }
                part += QStringLiteral(" (") + shown.join(QStringLiteral(", ")) + QLatin1Char(')');
            }
            parts << part;
        }
        lines << QStringLiteral("  errors: ") + parts.join(QStringLiteral(", "));
    }
    lines << QStringLiteral("  %1 %2 %3 %4 %5 %6")
                 .arg(QStringLiteral("metric (ms)"), -18)
                 .arg(QStringLiteral("p50"), 10)
                 .arg(QStringLiteral("p90"), 10)
                 .arg(QStringLiteral("p95"), 10)
                 .arg(QStringLiteral("p99"), 10)
                 .arg(QStringLiteral("max"), 10);
    for (const char* key :
        { "ttft_ms", "ttfc_ms", "tpot_ms", "itl_ms", "e2e_ms", "schedule_lag_ms", "send_queue_ms" }) {
        if (!s.contains(key) || s[key].is_null())
            continue;
        const auto& p = s[key];
        auto cell = [&](const char* k) {
            // An imported tool's summary may lack a statistic: say so rather than print 0.
            return p.contains(k) && p[k].is_number() ? QStringLiteral("%1").arg(p[k].get<double>(), 10, 'f', 1)
                                                     : QStringLiteral("%1").arg(QStringLiteral("n/a"), 10);
        };
        lines << QStringLiteral("  %1 %2 %3 %4 %5 %6")
                     .arg(QString::fromLatin1(key), -18)
                     .arg(cell("p50"), cell("p90"), cell("p95"), cell("p99"), cell("max"));
    }
    if (const QString split = formatTtftSplit(s); !split.isEmpty())
        lines << split;
    const QStringList bounds = sloBounds(s.value("slo", nlohmann::json()));
    const QString sloText
        = bounds.isEmpty() ? QStringLiteral("no SLO set: equals throughput") : bounds.join(QStringLiteral(", "));
    lines << QStringLiteral("  throughput: %1 req/s, %2 output tok/s, goodput %3 req/s (%4)")
                 .arg(s.value("req_per_s", 0.0), 0, 'f', 2)
                 .arg(s.value("out_tok_per_s", 0.0), 0, 'f', 1)
                 .arg(s.value("goodput_req_per_s", 0.0), 0, 'f', 2)
                 .arg(sloText);
    if (const std::string trace = traceLatenessLine(s.value("trace", nlohmann::json())); !trace.empty())
        lines << QString::fromStdString(trace);
    for (const auto& w : s.value("warnings", nlohmann::json::array()))
        lines << QStringLiteral("  WARNING: ") + QString::fromStdString(w.get<std::string>());
    return lines.join(QLatin1Char('\n'));
}

} // namespace ks
