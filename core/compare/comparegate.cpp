#include "compare/comparegate.h"

#include "compare/intervalnotes.h"

#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <limits>

namespace ks {

namespace {

const char* const kRates[] = { "req_per_s", "out_tok_per_s", "goodput_req_per_s" }; // with ratios, no interval
const char* const kCounts[] = { "errors", "error_rate", "drift" }; // absolute only

template <typename List> bool contains(const List& list, const QString& name)
{
    for (const char* item : list)
        if (name == QLatin1String(item))
            return true;
    return false;
}

// "ttft_ms.p99" as the typed comparison names it; empty for a rate or a count.
std::optional<std::pair<LatencyMetric, LatencyStat>> latencyOf(const QString& metric)
{
    const QStringList parts = metric.split(QLatin1Char('.'));
    if (parts.size() != 2)
        return std::nullopt;
    const auto m = latencyMetricOf(parts[0].toStdString());
    const auto s = latencyStatOf(parts[1].toStdString());
    return m && s ? std::optional(std::pair(*m, *s)) : std::nullopt;
}

std::optional<std::pair<double, double>> bounds(const std::optional<Interval>& interval)
{
    return interval ? std::optional(std::pair(interval->low, interval->high)) : std::nullopt;
}

// A rate or a count of `config` by its gate name (gateMetrics()); the ratio for a relative condition.
std::optional<double> scalarOf(const ComparedConfig& config, const QString& metric, bool relative)
{
    if (metric == QLatin1String("req_per_s"))
        return relative ? config.reqPerSRatio : std::optional(config.reqPerS);
    if (metric == QLatin1String("out_tok_per_s"))
        return relative ? config.outTokPerSRatio : std::optional(config.outTokPerS);
    if (metric == QLatin1String("goodput_req_per_s"))
        return relative ? config.goodputRatio : std::optional(config.goodputReqPerS);
    if (relative)
        return std::nullopt; // counts have no ratio (parseGateCondition refuses one)
    if (metric == QLatin1String("errors"))
        return double(config.errors);
    if (metric == QLatin1String("error_rate"))
        return config.errorRate;
    return std::nullopt;
}

const char* opText(GateCondition::Op op)
{
    switch (op) {
    case GateCondition::Op::Greater:
        return ">";
    case GateCondition::Op::GreaterEqual:
        return ">=";
    case GateCondition::Op::Less:
        return "<";
    case GateCondition::Op::LessEqual:
        return "<=";
    }
    return "?";
}

bool past(const GateCondition& c, double v)
{
    switch (c.op) {
    case GateCondition::Op::Greater:
        return v > c.threshold;
    case GateCondition::Op::GreaterEqual:
        return v >= c.threshold;
    case GateCondition::Op::Less:
        return v < c.threshold;
    case GateCondition::Op::LessEqual:
        return v <= c.threshold;
    }
    return false;
}

QString number(double v, bool relative)
{
    return relative ? QString::number(v, 'f', 3) + QLatin1Char('x') : QString::number(v, 'g', 6);
}

// Fills value, interval, failed and reason from what was measured; `entry`
// (the configuration's compare entry; nullptr for drift) says how its
// intervals were made.
void judge(const GateCondition& c, std::optional<double> value, std::optional<std::pair<double, double>> interval,
    bool strict, const ComparedConfig* entry, GateVerdict& v)
{
    const QString what = c.metric == QLatin1String("drift")
        ? QStringLiteral("drift (probes whose output changed between this configuration's passes)")
        : c.metric + (c.relative ? QStringLiteral(" ratio") : QString());
    const QString threshold = QStringLiteral("%1 %2").arg(QLatin1String(opText(c.op)), number(c.threshold, c.relative));
    // Counts are counted, not sampled: no interval, nothing about run-to-run spread.
    const bool statistical = entry && !contains(kCounts, c.metric);
    const QString method = statistical ? intervalMethodText(*entry) : QString();
    v.method = statistical && interval ? intervalMethod(*entry) : QString();
    v.runToRunMeasured = !statistical || runToRunMeasured(*entry).value_or(true);
    const QString how = !v.runToRunMeasured ? QStringLiteral("; ") + unmeasuredDecisionText()
        : interval && !method.isEmpty()     ? QStringLiteral("; ") + method
                                            : QString();
    if (!value) {
        v.failed = true;
        v.value = std::numeric_limits<double>::quiet_NaN();
        v.reason = QStringLiteral("%1: no value (no successful request measured it), so it cannot pass %2")
                       .arg(what, threshold);
        return;
    }
    v.value = *value;
    if (strict || !interval) {
        v.failed = past(c, *value);
        const QString point = strict      ? QStringLiteral(" (point estimate, --strict)")
            : contains(kCounts, c.metric) ? QString()
                                          : QStringLiteral(" (point estimate: %1 has no interval)").arg(c.metric);
        v.reason
            = QStringLiteral("%1 %2 %3 %4%5%6")
                  .arg(what, number(*value, c.relative), v.failed ? QStringLiteral("is") : QStringLiteral("is not"),
                      threshold, point, v.runToRunMeasured ? QString() : how);
        return;
    }
    v.interval = interval;
    const bool upward = c.op == GateCondition::Op::Greater || c.op == GateCondition::Op::GreaterEqual;
    const double nearEnd = upward ? interval->first : interval->second; // the end nearest the threshold
    const double farEnd = upward ? interval->second : interval->first;
    v.failed = past(c, nearEnd);
    v.undecided = !v.failed && past(c, farEnd);
    const QString level = confidenceText(intervalConfidence(*entry));
    const QString range
        = QStringLiteral("[%1, %2]").arg(number(interval->first, c.relative), number(interval->second, c.relative));
    if (v.failed) {
        v.reason = QStringLiteral("%1 %2 %3: the whole %4 interval is %5")
                       .arg(what, number(*value, c.relative), range, level, threshold);
    } else if (v.undecided) {
        const auto latency = latencyOf(c.metric);
        const QString rounds
            = c.relative && latency ? roundsNeededText(*entry, latency->first, latency->second) : QString();
        v.reason = QStringLiteral("%1 %2: undecided: the %3 interval %4 spans the threshold %5%6%7")
                       .arg(what, number(*value, c.relative), level, range, number(c.threshold, c.relative),
                           past(c, *value) ? QStringLiteral(" (the point estimate is past it; --strict judges the "
                                                            "point estimate)")
                                           : QString(),
                           rounds.isEmpty() ? QString() : QStringLiteral("; ") + rounds);
    } else {
        v.reason = QStringLiteral("%1 %2 %3: not %4").arg(what, number(*value, c.relative), range, threshold);
    }
    v.reason += how;
}

// Probes whose output changed between passes of one configuration (repeats or restarts).
int driftCount(const ConfigDrift& config)
{
    QSet<QString> changed(config.withinRun.begin(), config.withinRun.end());
    for (const QString& probe : config.acrossRestart)
        changed.insert(probe);
    return int(changed.size());
}

GateVerdict verdictFor(const GateCondition& c, const QString& arm, const QString& config)
{
    GateVerdict v;
    v.condition = c.text;
    v.arm = arm;
    v.config = config;
    return v;
}

} // namespace

QStringList gateMetrics()
{
    QStringList out;
    for (LatencyMetric m : kLatencyMetrics)
        for (LatencyStat p : kLatencyStats)
            out << QStringLiteral("%1.%2").arg(QLatin1String(latencyKey(m)), QLatin1String(statKey(p)));
    for (const char* m : kRates)
        out << QLatin1String(m);
    for (const char* m : kCounts)
        out << QLatin1String(m);
    return out;
}

std::variant<GateCondition, QString> parseGateCondition(const QString& text)
{
    static const QRegularExpression re(QStringLiteral(
        R"(^\s*(?:([^:\s][^:]*?)\s*:\s*)?([a-z][a-z0-9_]*(?:\.p\d+)?)\s*(>=|<=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(x?)\s*$)"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return QStringLiteral("\"%1\": expected [ARM:]METRIC OP NUMBER[x], e.g. \"stress:ttft_ms.p99 > 1.10x\" or "
                              "\"errors > 0\" (OP is >, >=, < or <=)")
            .arg(text);
    GateCondition c;
    c.text = text.trimmed();
    c.arm = m.captured(1);
    c.metric = m.captured(2);
    const QString op = m.captured(3);
    c.op = op == QLatin1String(">") ? GateCondition::Op::Greater
        : op == QLatin1String(">=") ? GateCondition::Op::GreaterEqual
        : op == QLatin1String("<")  ? GateCondition::Op::Less
                                    : GateCondition::Op::LessEqual;
    bool ok = false;
    c.threshold = m.captured(4).toDouble(&ok);
    c.relative = !m.captured(5).isEmpty();
    if (!ok || !std::isfinite(c.threshold))
        return QStringLiteral("\"%1\": the threshold is not a finite number").arg(text);
    if (!gateMetrics().contains(c.metric))
        return QStringLiteral("\"%1\": unknown metric %2 (known: %3)")
            .arg(text, c.metric, gateMetrics().join(QStringLiteral(", ")));
    if (c.relative && contains(kCounts, c.metric))
        return QStringLiteral("\"%1\": %2 has no ratio against the baseline; give an absolute number")
            .arg(text, c.metric);
    if (c.relative && c.threshold <= 0)
        return QStringLiteral("\"%1\": a ratio threshold must be above 0").arg(text);
    if (c.metric == QLatin1String("drift") && !c.arm.isEmpty() && c.arm != QLatin1String("probes"))
        return QStringLiteral("\"%1\": drift is measured on the probe passes; leave out the arm or write probes:")
            .arg(text);
    return c;
}

std::vector<GateVerdict> evaluateGate(const std::vector<GateCondition>& conditions, const Comparison& compare,
    const DriftReport* drift, const GateOptions& options, QStringList* unmatched)
{
    std::vector<GateVerdict> verdicts;
    const auto judged
        = [&](const QString& config) { return options.configs.isEmpty() || options.configs.contains(config); };
    for (const GateCondition& c : conditions) {
        bool matched = false;
        if (c.metric == QLatin1String("drift")) {
            for (const ConfigDrift& config : drift ? drift->configs : std::vector<ConfigDrift> {}) {
                if (!judged(config.config))
                    continue;
                matched = true;
                GateVerdict v = verdictFor(c, QStringLiteral("probes"), config.config);
                judge(c, double(driftCount(config)), std::nullopt, options.strict, nullptr, v);
                verdicts.push_back(std::move(v));
            }
            if (!matched)
                unmatched->append(
                    QStringLiteral("\"%1\": the files have no probe passes to judge drift by").arg(c.text));
            continue;
        }
        const auto latency = latencyOf(c.metric);
        for (const ComparedArm& arm : compare) {
            if (!c.arm.isEmpty() && arm.arm != c.arm)
                continue;
            matched = true;
            for (const ComparedConfig& entry : arm.configs) {
                if (!judged(entry.config) || (c.relative && entry.config == arm.baseline))
                    continue;
                GateVerdict v = verdictFor(c, arm.arm, entry.config);
                if (latency) {
                    const auto [metric, stat] = *latency;
                    const ComparedStat& s = entry.stat(metric, stat);
                    judge(c, c.relative ? s.ratio : entry.value(metric, stat), bounds(c.relative ? s.ratioCi : s.ci),
                        options.strict, &entry, v);
                } else {
                    judge(c, scalarOf(entry, c.metric, c.relative), std::nullopt, options.strict, &entry, v);
                }
                verdicts.push_back(std::move(v));
            }
        }
        if (!matched)
            unmatched->append(QStringLiteral("\"%1\": no arm named %2").arg(c.text, c.arm));
    }
    return verdicts;
}

QByteArray gateJunit(const std::vector<GateVerdict>& verdicts)
{
    int failures = 0;
    for (const GateVerdict& v : verdicts)
        failures += v.failed ? 1 : 0;
    QString xml = QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                 "<testsuites name=\"knobscope compare\" tests=\"%1\" failures=\"%2\">\n"
                                 "  <testsuite name=\"knobscope gate\" tests=\"%1\" failures=\"%2\">\n")
                      .arg(verdicts.size())
                      .arg(failures);
    for (const GateVerdict& v : verdicts) {
        xml += QStringLiteral("    <testcase classname=\"knobscope.%1\" name=\"%2: %3\">\n")
                   .arg(v.arm.toHtmlEscaped(), v.config.toHtmlEscaped(), v.condition.toHtmlEscaped());
        // "none": the decision had no interval (a count, a rate, or no value).
        xml += QStringLiteral("      <properties>\n        <property name=\"ci95.method\" value=\"%1\"/>\n"
                              "      </properties>\n")
                   .arg(v.method.isEmpty() ? QStringLiteral("none") : v.method.toHtmlEscaped());
        if (v.failed)
            xml += QStringLiteral("      <failure message=\"%1\">%1</failure>\n    </testcase>\n")
                       .arg(v.reason.toHtmlEscaped());
        else
            xml += QStringLiteral("      <system-out>%1</system-out>\n    </testcase>\n").arg(v.reason.toHtmlEscaped());
    }
    xml += QStringLiteral("  </testsuite>\n</testsuites>\n");
    return xml.toUtf8();
}

QString gateMarkdown(const std::vector<GateVerdict>& verdicts, bool strict)
{
    int failures = 0;
    for (const GateVerdict& v : verdicts)
        failures += v.failed ? 1 : 0;
    QString md = failures > 0
        ? QStringLiteral("**knobscope gate: failed**, %1 of %2 checks\n\n").arg(failures).arg(verdicts.size())
        : QStringLiteral("**knobscope gate: passed**, %1 checks\n\n").arg(verdicts.size());
    int oneRun = 0, undecided = 0;
    for (const GateVerdict& v : verdicts) {
        oneRun += v.runToRunMeasured ? 0 : 1;
        undecided += v.undecided ? 1 : 0;
    }
    md += strict ? QStringLiteral("Judged by the point estimates (`--strict`).")
                 : QStringLiteral("A check fails only when its whole interval is past its threshold; each line says "
                                  "how the interval was made (`--strict` judges the point estimate).");
    if (undecided > 0)
        md += QStringLiteral(" %1 undecided: the interval spans the threshold.").arg(undecided);
    if (oneRun > 0)
        md += QStringLiteral(" %1 of %2 rest on one run each: run-to-run not measured (add repeats or a "
                             "calibration).")
                  .arg(oneRun)
                  .arg(verdicts.size());
    md += QStringLiteral("\n\n");
    md += QStringLiteral("| | arm | configuration | condition | why |\n| --- | --- | --- | --- | --- |\n");
    for (const GateVerdict& v : verdicts)
        md += QStringLiteral("| %1 | %2 | %3 | `%4` | %5 |\n")
                  .arg(v.failed ? QStringLiteral("FAIL") : QStringLiteral("ok"), v.arm, v.config, v.condition,
                      QString(v.reason).replace(QLatin1Char('|'), QStringLiteral("\\|")));
    return md;
}

} // namespace ks
