#include "telemetry/prometheustext.h"

#include <cmath>
#include <limits>
#include <map>

namespace ks {

namespace {

bool isNameChar(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

std::optional<double> parseValue(const QByteArray& token)
{
    if (token == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (token == "+Inf" || token == "Inf")
        return std::numeric_limits<double>::infinity();
    if (token == "-Inf")
        return -std::numeric_limits<double>::infinity();
    bool ok = false;
    const double v = token.toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

// Parses `{a="x",b="y"}` starting at pos (which points at '{'); returns false on error.
bool parseLabels(const QByteArray& line, qsizetype& pos, QList<QPair<QString, QString>>& labels)
{
    ++pos; // '{'
    while (true) {
        while (pos < line.size() && (line[pos] == ' ' || line[pos] == ','))
            ++pos;
        if (pos < line.size() && line[pos] == '}') {
            ++pos;
            return true;
        }
        const qsizetype nameStart = pos;
        while (pos < line.size() && isNameChar(line[pos], pos == nameStart))
            ++pos;
        if (pos == nameStart || pos >= line.size() || line[pos] != '=' || pos + 1 >= line.size()
            || line[pos + 1] != '"')
            return false;
        const QString name = QString::fromUtf8(line.mid(nameStart, pos - nameStart));
        pos += 2;
        QByteArray value;
        while (pos < line.size() && line[pos] != '"') {
            if (line[pos] == '\\' && pos + 1 < line.size()) {
                const char next = line[pos + 1];
                value += next == 'n' ? '\n' : next;
                pos += 2;
            } else {
                value += line[pos++];
            }
        }
        if (pos >= line.size())
            return false; // unterminated value
        ++pos; // closing quote
        labels.append({ name, QString::fromUtf8(value) });
    }
}

} // namespace

PromParseResult parsePrometheusText(const QByteArray& text)
{
    PromParseResult result;
    for (QByteArray line : text.split('\n')) {
        line = line.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        qsizetype pos = 0;
        while (pos < line.size() && isNameChar(line[pos], pos == 0))
            ++pos;
        if (pos == 0) {
            ++result.malformedLines;
            continue;
        }
        PromSample sample;
        sample.name = QString::fromUtf8(line.left(pos));
        if (pos < line.size() && line[pos] == '{' && !parseLabels(line, pos, sample.labels)) {
            ++result.malformedLines;
            continue;
        }
        const QList<QByteArray> rest = line.mid(pos).simplified().split(' ');
        const std::optional<double> value = rest.isEmpty() ? std::nullopt : parseValue(rest.first());
        if (!value || rest.size() > 2) {
            ++result.malformedLines;
            continue;
        }
        sample.value = *value;
        result.samples.push_back(std::move(sample));
    }
    return result;
}

ServerGauges extractServerGauges(const std::vector<PromSample>& samples)
{
    struct Name {
        const char* metric;
        const char* engine;
        std::optional<double> ServerGauges::*field;
    };
    static const Name kNames[] = {
        { "vllm:num_requests_running", "vllm", &ServerGauges::running },
        { "vllm:num_requests_waiting", "vllm", &ServerGauges::waiting },
        { "vllm:kv_cache_usage_perc", "vllm", &ServerGauges::kvCacheUsage },
        { "vllm:gpu_cache_usage_perc", "vllm", &ServerGauges::kvCacheUsage },
        { "sglang:num_running_reqs", "sglang", &ServerGauges::running },
        { "sglang:num_queue_reqs", "sglang", &ServerGauges::waiting },
        { "sglang:token_usage", "sglang", &ServerGauges::kvCacheUsage },
        { "llamacpp:requests_processing", "llamacpp", &ServerGauges::running },
        { "llamacpp:requests_deferred", "llamacpp", &ServerGauges::waiting },
    };
    ServerGauges gauges;
    for (const PromSample& s : samples) {
        if (std::isnan(s.value))
            continue;
        for (const Name& n : kNames) {
            if (s.name != QLatin1String(n.metric))
                continue;
            std::optional<double>& field = gauges.*(n.field);
            // Usage is a fraction per engine instance: keep the highest; counts add up.
            if (n.field == &ServerGauges::kvCacheUsage)
                field = field ? std::max(*field, s.value) : s.value;
            else
                field = field.value_or(0) + s.value;
            gauges.engine = QString::fromLatin1(n.engine);
        }
    }
    return gauges;
}

std::optional<SpecDecodeCounters> extractSpecDecode(const std::vector<PromSample>& samples)
{
    static const QLatin1String kCounters[] = { QLatin1String("vllm:spec_decode_num_drafts_total"),
        QLatin1String("vllm:spec_decode_num_draft_tokens_total"),
        QLatin1String("vllm:spec_decode_num_accepted_tokens_total") };
    double sums[3] = { 0, 0, 0 };
    bool seen[3] = { false, false, false };
    SpecDecodeCounters c;
    for (const PromSample& s : samples) {
        if (!std::isfinite(s.value))
            continue;
        if (s.name == QLatin1String("sglang:spec_accept_length")) {
            c.acceptLength = c.acceptLength ? std::max(*c.acceptLength, s.value) : s.value;
            continue;
        }
        for (int i = 0; i < 3; ++i) {
            if (s.name == kCounters[i]) {
                sums[i] += s.value;
                seen[i] = true;
            }
        }
    }
    if (seen[0] && seen[1] && seen[2]) {
        c.counters = true;
        c.drafts = sums[0];
        c.draftTokens = sums[1];
        c.acceptedTokens = sums[2];
    }
    return c.any() ? std::optional<SpecDecodeCounters>(c) : std::nullopt;
}

LatencyHistograms extractLatencyHistograms(const std::vector<PromSample>& samples)
{
    struct Sums {
        std::map<double, double> buckets; ///< le -> cumulative count, over label sets
        double sum = 0, count = 0;
    };
    static const QLatin1String kNames[] = { QLatin1String("vllm:request_queue_time_seconds"),
        QLatin1String("vllm:request_prefill_time_seconds"), QLatin1String("vllm:request_decode_time_seconds") };
    Sums sums[3];
    for (const PromSample& s : samples) {
        if (!std::isfinite(s.value) || !s.name.startsWith(QLatin1String("vllm:request_")))
            continue;
        for (int i = 0; i < 3; ++i) {
            if (!s.name.startsWith(kNames[i]))
                continue;
            const QStringView suffix = QStringView(s.name).mid(kNames[i].size());
            if (suffix == QLatin1String("_sum")) {
                sums[i].sum += s.value;
            } else if (suffix == QLatin1String("_count")) {
                sums[i].count += s.value;
            } else if (suffix == QLatin1String("_bucket")) {
                for (const auto& [name, value] : s.labels) {
                    if (name != QLatin1String("le"))
                        continue;
                    const std::optional<double> le = parseValue(value.toUtf8());
                    if (le && !std::isnan(*le))
                        sums[i].buckets[*le] += s.value;
                }
            }
        }
    }
    LatencyHistograms out;
    PromHistogram* targets[3] = { &out.queue, &out.prefill, &out.decode };
    for (int i = 0; i < 3; ++i) {
        for (const auto& [le, cumulative] : sums[i].buckets) {
            targets[i]->upperBounds.push_back(le);
            targets[i]->cumulative.push_back(cumulative);
        }
        targets[i]->sum = sums[i].sum;
        targets[i]->count = sums[i].count;
    }
    return out;
}

} // namespace ks
