#include "spec/experimentspec.h"
#include "spec/roundsspecreader.h"
#include "spec/specchecker.h"

namespace ks {

namespace {

using nlohmann::json;
using spec::Checker;
using spec::child;
using spec::indexed;

constexpr int kMaxRounds = 50;

bool isRoundRatio(const QString& ratio)
{
    static const QStringList metrics { QStringLiteral("ttft_ms"), QStringLiteral("tpot_ms"), QStringLiteral("itl_ms"),
        QStringLiteral("e2e_ms") };
    static const QStringList stats { QStringLiteral("p50"), QStringLiteral("p95"), QStringLiteral("p99") };
    const QStringList parts = ratio.split(QLatin1Char('.'));
    return parts.size() == 2 && metrics.contains(parts[0]) && stats.contains(parts[1]);
}

// An arm a ratio may name: one that runs until decided. Empty when it is one, else why not.
QString armProblem(const ExperimentSpec& spec, const QString& name)
{
    QStringList names;
    for (const ArmSpec& arm : spec.arms) {
        names << arm.name;
        if (arm.name != name)
            continue;
        if (arm.sweep)
            return QStringLiteral("arm \"%1\" is a sweep: its steps run in the first round; rounds repeat plain arms")
                .arg(name);
        if (arm.repeatsGiven)
            return QStringLiteral("arm \"%1\" has its own \"repeats\" (%2): it does not run until decided")
                .arg(name)
                .arg(arm.repeats);
        return {};
    }
    return QStringLiteral("no arm \"%1\" (arms: %2)").arg(name, names.join(QStringLiteral(", ")));
}

void readRatios(Checker& c, const json& until, const QString& path, const ExperimentSpec& spec, RoundRule& rule)
{
    const auto ratios = until.find("ratios");
    if (ratios == until.end())
        return;
    const QString at = child(path, "ratios");
    if (!ratios->is_array() || ratios->empty()) {
        c.fail(at, QStringLiteral("expected a non-empty list of \"[ARM:]METRIC.STAT\", e.g. \"ttft_ms.p99\""));
        return;
    }
    for (std::size_t i = 0; i < ratios->size(); ++i) {
        const json& item = (*ratios)[i];
        const QString text = item.is_string() ? QString::fromStdString(item.get<std::string>()).trimmed() : QString();
        const qsizetype colon = text.indexOf(QLatin1Char(':'));
        RatioTarget target { colon < 0 ? QString() : text.left(colon).trimmed(), text.mid(colon + 1).trimmed() };
        if (!isRoundRatio(target.ratio) || (colon >= 0 && target.arm.isEmpty())) {
            c.fail(indexed(at, i),
                QStringLiteral("expected [ARM:]METRIC.STAT with METRIC ttft_ms, tpot_ms, itl_ms or e2e_ms and STAT "
                               "p50, p95 or p99, got %1")
                    .arg(item.is_string() ? QLatin1Char('"') + text + QLatin1Char('"')
                                          : QString::fromStdString(item.dump())));
            continue;
        }
        if (!target.arm.isEmpty())
            if (const QString problem = armProblem(spec, target.arm); !problem.isEmpty()) {
                c.fail(indexed(at, i), problem);
                continue;
            }
        rule.ratios.push_back(target);
    }
}

void readFailIf(Checker& c, const json& until, const QString& path, const ExperimentSpec& spec, RoundRule& rule)
{
    const auto failIf = until.find("fail_if");
    if (failIf == until.end())
        return;
    const QString at = child(path, "fail_if");
    if (!failIf->is_array() || failIf->empty()) {
        c.fail(at, QStringLiteral("expected a non-empty list of conditions, e.g. \"ttft_ms.p99 > 1.10x\""));
        return;
    }
    for (std::size_t i = 0; i < failIf->size(); ++i) {
        const json& item = (*failIf)[i];
        if (!item.is_string()) {
            c.fail(indexed(at, i),
                QStringLiteral("expected a condition as compare --fail-if takes it, got %1")
                    .arg(QString::fromStdString(item.dump())));
            continue;
        }
        auto parsed = parseGateCondition(QString::fromStdString(item.get<std::string>()));
        if (const QString* error = std::get_if<QString>(&parsed)) {
            c.fail(indexed(at, i), *error);
            continue;
        }
        const GateCondition& condition = std::get<GateCondition>(parsed);
        if (!condition.relative || !isRoundRatio(condition.metric)) {
            c.fail(indexed(at, i),
                QStringLiteral("\"%1\": the rounds are decided on the ratios' intervals: name a latency percentile "
                               "(p50, p95 or p99) against the baseline, ending in x (\"ttft_ms.p99 > 1.10x\")")
                    .arg(condition.text));
            continue;
        }
        if (!condition.arm.isEmpty())
            if (const QString problem = armProblem(spec, condition.arm); !problem.isEmpty()) {
                c.fail(indexed(at, i), problem);
                continue;
            }
        rule.failIf.push_back(condition);
    }
}

std::optional<RoundRule> readUntilForm(Checker& c, const json& repeats, const ExperimentSpec& spec)
{
    const QString path = QStringLiteral("repeats");
    c.rejectUnknown(repeats, path, { "min", "max", "until" });
    const std::size_t before = c.errors.size();
    RoundRule rule;
    rule.min = c.integer(repeats, path, "min", false, 2).value_or(2);
    if (const auto max = repeats.find("max"); max == repeats.end()) {
        c.fail(child(path, "max"), QStringLiteral("required: the budget of rounds (at most %1)").arg(kMaxRounds));
    } else if (!max->is_number_integer() || max->get<long long>() < rule.min) {
        c.fail(child(path, "max"),
            QStringLiteral("expected a whole number >= repeats.min (%1), got %2")
                .arg(rule.min)
                .arg(QString::fromStdString(max->dump())));
    } else if (max->get<long long>() > kMaxRounds) {
        c.fail(child(path, "max"),
            QStringLiteral("expected at most %1 rounds, got %2").arg(kMaxRounds).arg(max->get<long long>()));
    } else {
        rule.max = max->get<int>();
    }
    const auto until = repeats.find("until");
    const QString untilPath = child(path, "until");
    if (until == repeats.end()) {
        c.fail(untilPath,
            QStringLiteral("required: what decides (\"ratios\", \"fail_if\"); for a fixed count write \"repeats\": N"));
    } else if (c.isObject(*until, untilPath)) {
        c.rejectUnknown(*until, untilPath, { "ratios", "half_width", "fail_if" });
        if (!until->contains("ratios") && !until->contains("fail_if"))
            c.fail(untilPath, QStringLiteral("needs \"ratios\" or \"fail_if\" (or both): what the rounds must decide"));
        if (const auto hw = until->find("half_width"); hw != until->end()) {
            if (!hw->is_number() || !(hw->get<double>() > 0 && hw->get<double>() < 1))
                c.fail(child(untilPath, "half_width"),
                    QStringLiteral("expected a fraction between 0 and 1 (0.05: within ±5 %), got %1")
                        .arg(QString::fromStdString(hw->dump())));
            else
                rule.halfWidth = hw->get<double>();
        }
        readRatios(c, *until, untilPath, spec, rule);
        readFailIf(c, *until, untilPath, spec, rule);
    }
    if (spec.search)
        c.fail(path,
            QStringLiteral("repeats until decided do not go with \"search\": a search runs its probes one after "
                           "another; give a whole number"));
    else if (spec.configs.size() == 1)
        c.fail(untilPath,
            QStringLiteral("needs two configurations or more: each ratio is a configuration against the baseline "
                           "(this spec has 1)"));
    for (const ArmSpec& arm : spec.arms)
        if (!arm.sweep && !arm.repeatsGiven)
            rule.arms << arm.name;
    if (rule.arms.isEmpty() && !spec.arms.empty())
        c.fail(untilPath,
            QStringLiteral("no plain arm runs until decided: sweep arms run in the first round, and arms with their "
                           "own \"repeats\" keep them"));
    if (c.errors.size() != before)
        return std::nullopt;
    return rule;
}

void readOrder(Checker& c, const json& doc, ExperimentSpec& spec)
{
    RoundsSpec& rounds = spec.rounds;
    rounds.seed = spec.seed;
    if (const auto order = c.string(doc, {}, "order", false)) {
        if (*order == QLatin1String("blocked"))
            rounds.order = RoundsSpec::Order::Blocked;
        else if (*order != QLatin1String("interleaved"))
            c.fail(QStringLiteral("order"),
                QStringLiteral("expected \"interleaved\" or \"blocked\", got \"%1\"").arg(*order));
        else if (spec.search)
            c.fail(QStringLiteral("order"),
                QStringLiteral("a search runs its probes one after another: leave \"order\" out or write \"blocked\""));
    }
    if (spec.search)
        rounds.order = RoundsSpec::Order::Blocked;
    if (const auto seed = doc.find("order_seed"); seed != doc.end()) {
        if (seed->is_number_unsigned())
            rounds.seed = seed->get<quint64>();
        else
            c.fail(QStringLiteral("order_seed"),
                QStringLiteral("expected a whole number of at least 0, got %1")
                    .arg(QString::fromStdString(seed->dump())));
    }
}

} // namespace

void readRounds(Checker& c, const json& doc, ExperimentSpec& spec)
{
    readOrder(c, doc, spec);
    const auto repeats = doc.find("repeats");
    if (repeats == doc.end() || repeats->is_null())
        return;
    if (repeats->is_object()) {
        spec.rounds.until = readUntilForm(c, *repeats, spec);
        if (doc.contains("order") && spec.rounds.order == RoundsSpec::Order::Blocked && !spec.search)
            c.fail(QStringLiteral("order"),
                QStringLiteral("repeats until decided need \"interleaved\" rounds: every configuration once a round, "
                               "so that each round can be judged"));
        if (!spec.rounds.until)
            return;
        for (ArmSpec& arm : spec.arms)
            if (!arm.repeatsGiven)
                arm.repeats = arm.sweep ? spec.rounds.until->min : spec.rounds.until->max;
        return;
    }
    if (!repeats->is_number_integer()) {
        c.fail(QStringLiteral("repeats"),
            QStringLiteral("expected a whole number of at least 1, or an object {\"min\", \"max\", \"until\"}"));
        return;
    }
    const auto n = c.integer(doc, {}, "repeats", false, 1);
    if (!n)
        return;
    for (ArmSpec& arm : spec.arms)
        if (!arm.repeatsGiven)
            arm.repeats = *n;
}

} // namespace ks
