#include "metrics/ttftsplit.h"

#include "metrics/percentiles.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

namespace ks {

namespace {

const char* const kLlamaCpp = "llamacpp-timings";
const char* const kHistograms = "vllm-histograms";

nlohmann::json statsOf(std::vector<double>& values)
{
    const PercentileSummary s = summarizeBySelection(values);
    return { { "p50", s.p50 }, { "p90", s.p90 }, { "p95", s.p95 }, { "p99", s.p99 }, { "max", s.max },
        { "mean", s.mean }, { "count", s.count } };
}

// A split read back from a file may have any type in any field: never value() on it.
std::string sourceOf(const nlohmann::json& split)
{
    const auto it = split.find("source");
    return it != split.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int rankOf(const nlohmann::json& split)
{
    if (!split.is_object())
        return 0;
    const std::string source = sourceOf(split);
    return source == kLlamaCpp ? 2 : source == kHistograms ? 1 : 0;
}

// What the server observed between two scrapes: bucket and _sum/_count deltas.
struct Delta {
    std::vector<double> upperBounds, cumulative;
    double sum = 0, count = 0;
};

std::optional<Delta> deltaOf(const PromHistogram& first, const PromHistogram& last)
{
    // The same buckets at both instants, counts never going back: else the server restarted.
    if (!first.present() || first.upperBounds != last.upperBounds || first.cumulative.size() != last.cumulative.size())
        return std::nullopt;
    Delta d;
    d.upperBounds = last.upperBounds;
    double previous = 0;
    for (std::size_t i = 0; i < last.cumulative.size(); ++i) {
        const double v = last.cumulative[i] - first.cumulative[i];
        if (!(v >= 0))
            return std::nullopt;
        previous = std::max(previous, v); // cumulative: never smaller than the bucket below
        d.cumulative.push_back(previous);
    }
    d.count = last.count - first.count;
    d.sum = last.sum - first.sum;
    if (!(d.count > 0) || !(d.sum >= 0) || d.cumulative.empty() || !(d.cumulative.back() > 0))
        return std::nullopt;
    return d;
}

// The bucket [lower, upper] edges, in ms, that hold the quantile q: all a
// histogram knows of it. The +Inf bucket has no upper edge (null).
nlohmann::json bucketOf(const Delta& d, double q)
{
    const double rank = std::clamp(q, 0.0, 1.0) * d.cumulative.back();
    std::size_t b = 0;
    while (b + 1 < d.cumulative.size() && d.cumulative[b] < rank)
        ++b;
    const double lower = b == 0 ? 0 : d.upperBounds[b - 1] * 1000.0;
    const double upper = d.upperBounds[b] * 1000.0;
    return nlohmann::json::array({ lower, std::isinf(upper) ? nlohmann::json(nullptr) : nlohmann::json(upper) });
}

// Seconds to milliseconds; the highest non-empty bucket's upper edge stands for max.
nlohmann::json histogramStats(const Delta& d)
{
    auto q = [&](double quantile) { return histogramQuantile(d.upperBounds, d.cumulative, quantile) * 1000.0; };
    double max = 0;
    for (std::size_t i = 0; i < d.cumulative.size(); ++i) {
        const double below = i == 0 ? 0 : d.cumulative[i - 1];
        if (d.cumulative[i] > below)
            max = std::isinf(d.upperBounds[i]) ? (i > 0 ? d.upperBounds[i - 1] : 0) : d.upperBounds[i];
    }
    return { { "p50", q(0.50) }, { "p90", q(0.90) }, { "p95", q(0.95) }, { "p99", q(0.99) }, { "max", max * 1000.0 },
        { "mean", d.sum / d.count * 1000.0 }, { "count", d.count },
        { "bucket",
            { { "p50", bucketOf(d, 0.50) }, { "p90", bucketOf(d, 0.90) }, { "p95", bucketOf(d, 0.95) },
                { "p99", bucketOf(d, 0.99) } } } };
}

QString ms(const nlohmann::json& object, const char* stat)
{
    const auto it = object.is_object() ? object.find(stat) : object.end();
    return it != object.end() && it->is_number() ? QStringLiteral("%1").arg(it->get<double>(), 10, 'f', 1)
                                                 : QStringLiteral("%1").arg(QStringLiteral("n/a"), 10);
}

QString meanText(const nlohmann::json& split, const char* part)
{
    const nlohmann::json p = split.value(part, nlohmann::json());
    return p.is_object() && p.value("mean", nlohmann::json()).is_number()
        ? QString::number(p["mean"].get<double>(), 'f', 1)
        : QStringLiteral("n/a");
}

} // namespace

nlohmann::json ttftSplitFromRequests(TtftSplitInput& in)
{
    if (in.queueMs.empty())
        return nullptr;
    const auto n = in.queueMs.size();
    return { { "queue", statsOf(in.queueMs) }, { "prefill", statsOf(in.prefillMs) }, { "rest", statsOf(in.restMs) },
        { "source", kLlamaCpp }, { "requests", n } };
}

double histogramQuantile(const std::vector<double>& upperBounds, const std::vector<double>& cumulative, double q)
{
    // Prometheus' bucketQuantile(): the rank's bucket among the finite ones, else the +Inf one.
    if (upperBounds.empty() || upperBounds.size() != cumulative.size() || !(cumulative.back() > 0))
        return 0;
    const double rank = std::clamp(q, 0.0, 1.0) * cumulative.back();
    const std::size_t finite = std::isinf(upperBounds.back()) ? upperBounds.size() - 1 : upperBounds.size();
    std::size_t b = 0;
    while (b < finite && cumulative[b] < rank)
        ++b;
    if (b == finite) // in the +Inf bucket: the highest finite edge is all that is known
        return finite > 0 ? upperBounds[finite - 1] : 0;
    if (b == 0 && upperBounds[0] <= 0)
        return upperBounds[0];
    const double start = b == 0 ? 0 : upperBounds[b - 1];
    const double below = b == 0 ? 0 : cumulative[b - 1];
    const double inBucket = cumulative[b] - below;
    if (inBucket <= 0)
        return start;
    return start + (upperBounds[b] - start) * (rank - below) / inBucket;
}

nlohmann::json ttftSplitFromHistograms(const LatencyHistograms& first, const LatencyHistograms& last, double meanTtftMs)
{
    const std::optional<Delta> queue = deltaOf(first.queue, last.queue);
    const std::optional<Delta> prefill = deltaOf(first.prefill, last.prefill);
    if (!queue || !prefill)
        return nullptr;
    nlohmann::json split = { { "queue", histogramStats(*queue) }, { "prefill", histogramStats(*prefill) },
        { "source", kHistograms }, { "requests", queue->count },
        { "percentiles", "interpolated within the server's histogram buckets; max is a bucket edge" } };
    // Percentiles of a difference cannot come from separate histograms: the mean only.
    const double restMean = meanTtftMs - split["queue"]["mean"].get<double>() - split["prefill"]["mean"].get<double>();
    split["rest"] = meanTtftMs >= 0 ? nlohmann::json { { "mean", restMean } } : nlohmann::json(nullptr);
    return split;
}

void offerTtftSplit(nlohmann::json& summary, const nlohmann::json& candidate)
{
    const int offered = rankOf(candidate);
    if (offered == 0)
        return;
    const auto current = summary.find("ttft_split_ms");
    if (current == summary.end() || rankOf(*current) < offered)
        summary["ttft_split_ms"] = candidate;
}

void offerHistogramSplit(nlohmann::json& summary, const std::optional<LatencyHistograms>& first,
    const std::optional<LatencyHistograms>& last)
{
    if (!first || !last)
        return;
    const nlohmann::json ttft = summary.value("ttft_ms", nlohmann::json());
    const double meanTtftMs
        = ttft.is_object() && ttft.value("mean", nlohmann::json()).is_number() ? ttft["mean"].get<double>() : -1.0;
    offerTtftSplit(summary, ttftSplitFromHistograms(*first, *last, meanTtftMs));
}

QString ttftSplitBrief(const nlohmann::json& summary)
{
    const auto it = summary.find("ttft_split_ms");
    if (it == summary.end() || !it->is_object())
        return {};
    // A histogram's percentile is only known to its bucket; its mean is exact.
    const char* stat = sourceOf(*it) == kHistograms ? "mean" : "p50";
    QStringList parts;
    for (const char* part : { "queue", "prefill", "rest" }) {
        const nlohmann::json p = it->value(part, nlohmann::json());
        if (!p.is_object())
            continue;
        for (const char* shown : { stat, stat == std::string_view("mean") ? "p50" : "mean" }) {
            if (!p.value(shown, nlohmann::json()).is_number())
                continue;
            parts << QStringLiteral("%1 %2 %3")
                         .arg(QLatin1String(part), QLatin1String(shown))
                         .arg(p[shown].get<double>(), 0, 'f', 1);
            break;
        }
    }
    return QStringLiteral("%1 ms (%2)").arg(parts.join(QStringLiteral(", ")), QString::fromStdString(sourceOf(*it)));
}

QString ttftSplitSource(const nlohmann::json& split)
{
    return split.is_object() ? QString::fromStdString(sourceOf(split)) : QString();
}

QString ttftSplitRequestsText(const nlohmann::json& split)
{
    const auto it = split.is_object() ? split.find("requests") : split.end();
    return it != split.end() && it->is_number() ? QString::number(it->get<double>(), 'f', 0) : QStringLiteral("n/a");
}

QString formatTtftSplit(const nlohmann::json& summary)
{
    const auto it = summary.find("ttft_split_ms");
    if (it == summary.end() || !it->is_object())
        return {};
    const nlohmann::json& split = *it;
    QStringList lines;
    for (const char* part : { "queue", "prefill", "rest" }) {
        const nlohmann::json p = split.value(part, nlohmann::json());
        if (!p.is_object())
            continue;
        const QString name = QStringLiteral("ttft %1").arg(QLatin1String(part));
        if (sourceOf(split) == kHistograms) {
            // A percentile from a histogram is its bucket: say the bucket, and the exact mean.
            lines << QStringLiteral("  %1 %2").arg(name, -18).arg(ttftSplitPartText(split, part));
            continue;
        }
        lines << QStringLiteral("  %1 %2 %3 %4 %5 %6")
                     .arg(name, -18)
                     .arg(ms(p, "p50"), ms(p, "p90"), ms(p, "p95"), ms(p, "p99"), ms(p, "max"));
    }
    const std::string source = sourceOf(split);
    const QString requests = split.contains("requests") && split["requests"].is_number()
        ? QString::number(split["requests"].get<double>(), 'f', 0)
        : QStringLiteral("?");
    QString how;
    if (source == kLlamaCpp) {
        how = QStringLiteral("queue = response headers - send, prefill = the server's prompt_ms, rest = TTFT - both");
    } else if (source == kHistograms) {
        const nlohmann::json rest = split.value("rest", nlohmann::json());
        how = QStringLiteral("percentiles interpolated within vLLM's buckets (the bucket is all that is known of "
                             "them), max a bucket edge; means exact: queue %1, prefill %2 ms; rest is mean only: %3 ms")
                  .arg(meanText(split, "queue"), meanText(split, "prefill"))
                  .arg(rest.is_object() && rest.value("mean", nlohmann::json()).is_number()
                          ? QString::number(rest["mean"].get<double>(), 'f', 1)
                          : QStringLiteral("n/a"));
    }
    lines
        << QStringLiteral("  ttft split from %1 (%2 requests): %3").arg(QString::fromStdString(source), requests, how);
    return lines.join(QLatin1Char('\n'));
}

QString ttftSplitPartText(const nlohmann::json& split, const char* part)
{
    const nlohmann::json p = split.is_object() ? split.value(part, nlohmann::json()) : nlohmann::json();
    if (!p.is_object())
        return QStringLiteral("n/a");
    auto numberAt = [](const nlohmann::json& o, const char* key) -> std::optional<double> {
        const auto it = o.find(key);
        return it != o.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    const std::optional<double> p50 = numberAt(p, "p50"), mean = numberAt(p, "mean");
    if (sourceOf(split) == kHistograms && mean) {
        QString text = QStringLiteral("mean %1").arg(*mean, 0, 'f', 1);
        const auto bucket = p.find("bucket");
        if (p50 && bucket != p.end() && bucket->is_object()) {
            const nlohmann::json edges = bucket->value("p50", nlohmann::json());
            if (edges.is_array() && edges.size() == 2 && edges[0].is_number())
                text += QStringLiteral(" (p50 %1, in the bucket %2-%3)")
                            .arg(*p50, 0, 'f', 0)
                            .arg(edges[0].get<double>(), 0, 'f', 0)
                            .arg(edges[1].is_number() ? QString::number(edges[1].get<double>(), 'f', 0)
                                                      : QStringLiteral("inf"));
        }
        return text;
    }
    if (p50)
        return QStringLiteral("p50 %1").arg(*p50, 0, 'f', 1);
    return mean ? QStringLiteral("mean %1").arg(*mean, 0, 'f', 1) : QStringLiteral("n/a");
}

QString noTtftSplitReason()
{
    return QStringLiteral("the server publishes no queue timing (no llama.cpp timings, no vLLM latency histograms)");
}

} // namespace ks
