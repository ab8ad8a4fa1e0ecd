#include "runestimate.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

// The mean output length of an arm's requests; none for a distribution whose mean is not given.
std::optional<double> outputTokens(const ArmSpec& arm)
{
    if (!arm.maxTokensDist)
        return arm.maxTokens;
    const LengthDist& d = *arm.maxTokensDist;
    switch (d.kind) {
    case LengthDist::Kind::Fixed:
        return d.value;
    case LengthDist::Kind::Uniform:
        return (d.min + d.max) / 2.0;
    case LengthDist::Kind::Normal:
    case LengthDist::Kind::Lognormal:
        return d.mean > 0 ? std::optional<double>(std::clamp(d.mean, double(d.min), double(d.max))) : std::nullopt;
    }
    return std::nullopt;
}

// One run of a load (an arm, or one step of a sweep) against one configuration.
std::optional<double> loadSeconds(
    const ArmSpec& arm, bool closedLoop, double concurrency, double rate, std::optional<int> slotCount, double tpotMs)
{
    const auto tokens = outputTokens(arm);
    if (!tokens)
        return std::nullopt;
    const double generation = *tokens * tpotMs / 1000.0; // one request, start to end
    std::optional<double> seconds;
    const int requests = arm.requests + arm.warmup;
    if (arm.requests > 0) {
        if (closedLoop) {
            // Beyond the server's slotCount the rest wait: waves of at most `slotCount` requests.
            const double inFlight = std::max(1.0, slotCount ? std::min(concurrency, double(*slotCount)) : concurrency);
            seconds = std::ceil(requests / inFlight) * generation;
        } else if (rate > 0) {
            seconds = requests / rate + generation;
        }
    }
    if (arm.durationS > 0)
        seconds = std::min(seconds.value_or(arm.durationS + generation), arm.durationS + generation);
    return seconds;
}

std::optional<double> armSeconds(const ArmSpec& arm, const ConfigSpec& config, double tpotMs)
{
    std::optional<int> slotCount;
    if (const auto mns = config.knobText(QStringLiteral("max_num_seqs")))
        slotCount = mns->toInt();
    double total = 0;
    if (arm.mode == LoadSpec::Mode::Trace) {
        // The recorded schedule's span; each request's own generation overlaps the next sends.
        if (!arm.trace || !arm.trace->index)
            return std::nullopt;
        const std::vector<qint64> sends = arm.trace->schedule(arm.requests, arm.durationS);
        total = sends.empty() ? 0 : double(sends.back()) / 1e6;
    } else if (!arm.sweep) {
        const auto s
            = loadSeconds(arm, arm.mode == LoadSpec::Mode::Concurrency, arm.concurrency, arm.rate, slotCount, tpotMs);
        if (!s)
            return std::nullopt;
        total = *s;
    } else if (arm.sweep->autoRates) {
        // The automatic sweep's rates come from the server's measured throughput.
        if (arm.durationS <= 0)
            return std::nullopt;
        total = (arm.sweep->steps + 2) * arm.durationS;
    } else {
        for (double v : arm.sweep->values) {
            const bool closed = arm.sweep->over == SweepSpec::Over::Concurrency;
            const auto s = loadSeconds(arm, closed, closed ? v : 0, closed ? 0 : v, slotCount, tpotMs);
            if (!s)
                return std::nullopt;
            total += *s;
        }
    }
    return total * std::max(1, arm.repeats);
}

} // namespace

RunEstimate estimateRun(const ExperimentSpec& spec, double tpotMs)
{
    RunEstimate e;
    e.configurations = int(spec.configs.size());
    e.arms = int(spec.arms.size());
    std::vector<ConfigSpec> configs = spec.configs;
    if (spec.search) {
        // Each probe is the one configuration with every arm; the knobs the search sets are not known
        // ahead, so a closed loop's waves are not capped by a searched max_num_seqs.
        e.probes = spec.search->budget;
        for (ConfigSpec& config : configs) {
            config.knobs.erase(spec.search->knob.toStdString());
            for (const SearchKnob& knob : spec.search->knobs)
                config.knobs.erase(knob.name.toStdString());
        }
    }
    const int runs = spec.search ? spec.search->budget : 1;
    for (const ArmSpec& arm : spec.arms) {
        for (const ConfigSpec& config : configs) {
            const auto s = armSeconds(arm, config, tpotMs);
            if (!s) {
                e.unknown << arm.name;
                break;
            }
            e.seconds += *s * runs;
        }
    }
    if (spec.probes) {
        if (spec.probes->set == QLatin1String("builtin:quality-50")) {
            const int probes = 50 * (spec.probes->repeats + (spec.probes->acrossRestart ? 1 : 0));
            e.seconds += double(spec.configs.size()) * runs
                * std::ceil(probes / double(std::max(1, spec.probes->concurrency))) * spec.probes->maxTokens * tpotMs
                / 1000.0;
        } else {
            e.unknown << QStringLiteral("probes"); // a probe file's size is read only when the run starts
        }
    }
    return e;
}

QString estimateText(const RunEstimate& e)
{
    const auto count = [](int n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    const QString text
        = (e.probes > 0 ? QStringLiteral("a search of at most %1").arg(count(e.probes, "probe", "probes"))
                        : count(e.configurations, "configuration", "configurations"))
        + QStringLiteral(" × ") + count(e.arms, "arm", "arms");
    QString time;
    if (e.seconds < 90)
        time = QStringLiteral("%1 s").arg(std::lround(e.seconds));
    else if (e.seconds < 90 * 60)
        time = QStringLiteral("%1 min").arg(std::lround(e.seconds / 60));
    else
        time = QStringLiteral("%1 h").arg(e.seconds / 3600, 0, 'f', 1);
    const QString unknown = e.unknown.join(QStringLiteral(", "));
    if (e.unknown.isEmpty())
        return text + QStringLiteral(", about ") + time;
    if (e.seconds > 0)
        return text + QStringLiteral(", about %1 + unknown (%2)").arg(time, unknown);
    return text + QStringLiteral(", time unknown (%1)").arg(unknown);
}

QString estimateAssumptions(double tpotMs)
{
    return QCoreApplication::translate("RunEstimate",
        "Each arm's time from its own settings, against each configuration: a closed loop runs its requests in "
        "waves of min(concurrency, max_num_seqs) requests, each wave max_tokens × %1 ms (a nominal time per "
        "output token; knobscope-sim's models run at 16-28 ms, a real server's may differ severalfold); an open "
        "loop takes requests ÷ rate; a trace arm its recorded schedule ÷ speed; duration_s caps either. Repeats and "
        "sweep steps multiply; a search counts its whole budget of probes (it may stop sooner). Not counted: "
        "server starts, prefill, client overhead. \"unknown\": an automatic sweep without duration_s (its rates "
        "come from the server), a length distribution without a mean, a probe file (its size is read at the run).")
        .arg(tpotMs);
}

} // namespace ks
