#include "compare/diagnosis.h"

#include "compare/comparisonreader.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace ks {

namespace {

using json = nlohmann::json;

// A ratio this far from 1 (and significant) is a change worth a cause; closer is noise or no matter.
constexpr double kUp = 1.25;
constexpr double kDown = 0.8;
constexpr double kErrorRate = 0.01; // below 1 % of requests, errors do not explain a latency

std::optional<double> ratioOf(const json& entry, const char* metric)
{
    const auto r = entry.find("ratio");
    if (r == entry.end() || !r->is_object() || !r->contains(metric) || !(*r)[metric].is_object())
        return std::nullopt;
    const json& p50 = (*r)[metric].value("p50", json());
    return p50.is_number() ? std::optional<double>(p50.get<double>()) : std::nullopt;
}

// Whether the comparison computed intervals for TTFT or TPOT: the quick first pass (no resamples)
// leaves `significant` an empty object, which says nothing about noise either way.
bool hasIntervals(const json& entry)
{
    const auto s = entry.find("significant");
    return s != entry.end() && s->is_object() && (s->contains("ttft_ms") || s->contains("tpot_ms"));
}

bool significant(const json& entry, const char* metric)
{
    const auto s = entry.find("significant");
    if (s == entry.end() || !s->is_object())
        return false; // no intervals (a fast first pass, summary-only imports): nothing is shown to have moved
    const auto m = s->find(metric);
    return m != s->end() && m->is_object() && m->value("p50", json()) == true;
}

double maxWaiting(const json& entry)
{
    const json w = entry.value("max_waiting", json());
    return w.is_number() ? w.get<double>() : 0;
}

bool queued(const json& entry)
{
    return !entry.value("gentle", false) && maxWaiting(entry) > 0;
}

QString x(double ratio)
{
    return QString::number(ratio, 'f', ratio >= 10 ? 0 : 2) + QLatin1Char('x');
}

QString waitingText(const json& entry)
{
    return QStringLiteral("up to %1 requests waiting").arg(maxWaiting(entry));
}

// The server's own queue time, where a split measured it per request (llama.cpp's
// timings) or as an exact mean (vLLM's histograms). A `headers` split is left out:
// from a server that answers at once it is the round trip, not a queue.
QString queueSplit(const json& entry)
{
    const json split = entry.value("ttft_split_ms", json());
    if (!split.is_object() || !split.value("queue", json()).is_object())
        return {};
    const std::string source = split.value("source", std::string());
    const char* stat = source == "llamacpp-timings" ? "p50" : source == "vllm-histograms" ? "mean" : nullptr;
    if (!stat || !split["queue"].value(stat, json()).is_number())
        return {};
    return QStringLiteral(" (the server's own queue time: %1 %2 ms)")
        .arg(QLatin1String(stat))
        .arg(split["queue"][stat].get<double>(), 0, 'f', 0);
}

json why(const char* kind, const QString& text)
{
    return { { "kind", kind }, { "text", text.toStdString() } };
}

json diagnose(const json& entry, const json& baseline)
{
    QStringList extra;
    const double errorRate = entry.value("error_rate", 0.0);
    if (errorRate >= kErrorRate && errorRate > baseline.value("error_rate", 0.0))
        return why("errors",
            QStringLiteral("%1 % of requests failed (baseline %2 %): its latencies count only the requests that "
                           "succeeded")
                .arg(errorRate * 100, 0, 'f', 1)
                .arg(baseline.value("error_rate", 0.0) * 100, 0, 'f', 1));
    if (entry.value("client_bound", false))
        return why("client-bound",
            QStringLiteral("the client was the limit (its own threads busy and its event loop late): latencies include "
                           "client time; use fewer streams per core or a bigger client machine"));
    const auto ttft = ratioOf(entry, "ttft_ms");
    const auto tpot = ratioOf(entry, "tpot_ms");
    if (!ttft || !tpot)
        return why("no-change", QStringLiteral("not enough successful requests to say why"));
    const bool ttftUp = *ttft >= kUp && significant(entry, "ttft_ms");
    const bool ttftDown = *ttft <= kDown && significant(entry, "ttft_ms");
    const bool tpotUp = *tpot >= kUp && significant(entry, "tpot_ms");
    const bool tpotDown = *tpot <= kDown && significant(entry, "tpot_ms");
    const bool tpotFlat = !tpotUp && !tpotDown;
    const QString ratios = QStringLiteral("TTFT %1 while TPOT %2").arg(x(*ttft), x(*tpot));
    // Fewer batch slots make the queue and also smaller batches, so steps faster: TTFT up with TPOT down
    // and a queue is still queueing (the seed's cliff on llama.cpp: TTFT 12x, TPOT 0.49x, 12 waiting).
    if (ttftUp && !tpotUp && queued(entry))
        return why("queueing",
            QStringLiteral("%1 and %2: requests queued for a batch slot%3; %4")
                .arg(ratios, waitingText(entry), queueSplit(entry),
                    tpotFlat ? QStringLiteral("compute did not slow down")
                             : QStringLiteral("each step is faster, with fewer requests in the batch")));
    if (ttftDown && !tpotDown && queued(baseline) && !queued(entry))
        return why("queueing",
            QStringLiteral("%1: the baseline queued for batch slots (%2) and this configuration did not; %3")
                .arg(ratios, waitingText(baseline),
                    tpotFlat ? QStringLiteral("compute did not change")
                             : QStringLiteral("each step is slower, with more requests in the batch")));
    if (tpotUp || tpotDown)
        return why("compute",
            QStringLiteral(
                "TPOT %1 and TTFT %2: each step of the engine is %3 (the model, the batch or the hardware)%4")
                .arg(x(*tpot), x(*ttft), tpotUp ? QStringLiteral("slower") : QStringLiteral("faster"),
                    queued(entry) ? QStringLiteral(", with %1").arg(waitingText(entry)) : QString()));
    if (ttftUp || ttftDown)
        return why("prefill",
            QStringLiteral("%1 and no queue on the server: prefill takes %2 (prompt lengths, the prefix cache, or how "
                           "prefill is scheduled)")
                .arg(ratios, ttftUp ? QStringLiteral("longer") : QStringLiteral("less time")));
    // Large but not shown to be real, so no cause is named: either the rounds (or a
    // calibration) say the runs differ this much anyway, or nothing measured how much they do.
    const bool ttftLarge = *ttft >= kUp || *ttft <= kDown;
    const bool tpotLarge = *tpot >= kUp || *tpot <= kDown;
    const json runToRun = entry.value("run_to_run", json());
    if ((ttftLarge || tpotLarge) && runToRun.is_object() && !runToRun.value("measured", false))
        return why("unmeasured",
            QStringLiteral("%1%2: one run on each side and run-to-run spread not measured, so no cause is named; add "
                           "repeats (\"repeats\": 3) or an A/A calibration (run --aa) to tell")
                .arg(ratios, queued(entry) ? QStringLiteral(", with %1").arg(waitingText(entry)) : QString()));
    if ((ttftLarge || tpotLarge) && !hasIntervals(entry))
        return why("no-interval",
            QStringLiteral(
                "%1: no intervals were computed (the quick first pass, shown while they are computed), so whether this "
                "is more than noise is not known and no cause is named")
                .arg(ratios));
    if (ttftLarge || tpotLarge)
        return why("noise",
            QStringLiteral("%1: within run-to-run spread (the 95 % interval, which includes what the same "
                           "configuration run twice differs by, contains 1x), so no cause is named; add repeats "
                           "to tell")
                .arg(ratios));
    return why("no-change", QStringLiteral("no change at p50 worth a cause (%1)").arg(ratios));
}

} // namespace

void addDiagnoses(nlohmann::json& arm)
{
    const std::string baselineName = arm.value("baseline", std::string());
    json* baseline = nullptr;
    for (json& entry : arm["configs"])
        if (entry.value("config", std::string()) == baselineName)
            baseline = &entry;
    if (!baseline)
        return;
    for (json& entry : arm["configs"])
        if (&entry != baseline)
            entry["why"] = diagnose(entry, *baseline);
    if (arm.value("gentle", false))
        arm["why"] = why("gentle",
            QStringLiteral("gentle: no configuration queued on the server (a request waited in fewer than 10 % of "
                           "scrapes), so this arm compares compute, not capacity"));
}

QStringList diagnosisLines(const ComparedArm& arm)
{
    QStringList out;
    if (arm.why)
        out << QStringLiteral("Why: %1.").arg(arm.why->text);
    for (const ComparedConfig& config : arm.configs)
        if (config.why)
            out << QStringLiteral("Why %1 differs: %2 [%3].").arg(config.config, config.why->text, config.why->kind);
    return out;
}

QStringList diagnosisLines(const nlohmann::json& arm)
{
    return diagnosisLines(comparedArmFromJson(arm));
}

} // namespace ks
