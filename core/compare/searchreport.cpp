#include "compare/searchreport.h"

#include <QStringList>

namespace ks {

namespace {

using nlohmann::json;

QString str(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

QString num(const json& v)
{
    if (!v.is_number())
        return QStringLiteral("-");
    const double x = v.get<double>();
    return QString::number(x, 'f', std::abs(x) >= 100 ? 0 : std::abs(x) >= 10 ? 1 : 2);
}

QString value(const json& v)
{
    return v.is_number() ? QString::number(v.get<double>(), 'g', 10) : QStringLiteral("-");
}

QString interval(const json& ci)
{
    return ci.is_array() && ci.size() == 2 ? QStringLiteral("[%1-%2]").arg(num(ci[0]), num(ci[1])) : QString();
}

bool multi(const json& s)
{
    return s.contains("knobs") && s["knobs"].is_array();
}

QStringList knobNames(const json& s)
{
    QStringList names;
    if (multi(s)) {
        for (const json& k : s["knobs"])
            names << str(k, "name");
    } else {
        names << str(s, "knob");
    }
    return names;
}

// A probe's place: "max_num_seqs = 48" for one knob, "max_num_batched_tokens = 1024, max_num_seqs = 48" for several.
QString place(const json& s, const json& where, const char* separator = " = ", const char* join = ", ")
{
    if (!where.is_object())
        return str(s, "knob") + QLatin1String(separator) + value(where);
    QStringList parts;
    for (const QString& name : knobNames(s))
        parts << name + QLatin1String(separator) + value(where.value(name.toStdString(), json()));
    return parts.join(QLatin1String(join));
}

const json& whereOf(const json& probe)
{
    static const json none;
    if (const auto it = probe.find("point"); it != probe.end())
        return *it;
    if (const auto it = probe.find("value"); it != probe.end())
        return *it;
    return none;
}

QString stopText(const QString& stop)
{
    if (stop == QLatin1String("converged"))
        return QStringLiteral("stopped: the top and the plateau's cheap edge are resolved");
    if (stop == QLatin1String("budget"))
        return QStringLiteral("stopped: budget spent");
    if (stop == QLatin1String("exhausted"))
        return QStringLiteral("stopped: no value left to probe between");
    if (stop == QLatin1String("stopped"))
        return QStringLiteral("stopped early");
    return stop;
}

// The headline and the plateau sentence.
QStringList headline(const json& s)
{
    const json& probes = s.contains("probes") && s["probes"].is_array() ? s["probes"] : json::array();
    const QString knob = knobNames(s).join(QStringLiteral(" and ")), metric = str(s, "metric");
    const QString how
        = QStringLiteral("(arm %1, %2 probes; %3)").arg(str(s, "arm")).arg(probes.size()).arg(stopText(str(s, "stop")));
    QStringList lines;
    const json best = s.value("best", json());
    if (!best.is_number() && !best.is_object()) {
        lines << QStringLiteral("search over %1: no probe met the objective %2").arg(knob, how);
        return lines;
    }
    lines << QStringLiteral("best %1: %2 %3 %4 %5")
                 .arg(place(s, best), metric, num(s["objective"]), interval(s.value("ci95", json())), how);
    const json plateau = s.value("plateau", json());
    const json top = s.value("top", json());
    const bool hasTolerance = s.value("tolerance", json()).is_number();
    if (top.is_object() && whereOf(top) != best)
        lines << QStringLiteral("recommended: the %1 on the plateau; the highest-scoring probe, %2, read %3 %4")
                     .arg(multi(s) ? QStringLiteral("cheapest point (each knob's place in its range from its cheaper "
                                                    "end, summed)")
                             : str(s, "cheaper") == QLatin1String("higher") ? QStringLiteral("largest value")
                                                                            : QStringLiteral("smallest value"),
                         place(s, whereOf(top)), num(top.value("objective", json())),
                         interval(top.value("ci95", json())));
    const QString rule = hasTolerance ? QStringLiteral("within %1 % of the top or not told apart from it")
                                            .arg(s["tolerance"].get<double>() * 100, 0, 'g', 3)
                                      : QStringLiteral("within the interval of the best");
    if (plateau.is_array() && plateau.size() >= 2) {
        QStringList values;
        for (const json& v : plateau)
            values << (v.is_object() ? QStringLiteral("(%1)").arg(place(s, v, "=", ", ")) : value(v));
        lines << QStringLiteral("plateau (%1%2): %3")
                     .arg(rule, multi(s) ? QStringLiteral(", cheapest first") : QString(),
                         values.join(multi(s) ? QStringLiteral("; ") : QStringLiteral(", ")));
    } else {
        lines << QStringLiteral("plateau: no other probed %1 is %2")
                     .arg(multi(s) ? QStringLiteral("point") : QStringLiteral("value"), rule);
    }
    return lines;
}

} // namespace

QString searchText(const json& search)
{
    if (!search.is_object())
        return {};
    QStringList lines = headline(search);
    lines << QStringLiteral("probes, in the order run:");
    for (const json& p : search.value("probes", json::array())) {
        if (!p.is_object())
            continue;
        QString line
            = QStringLiteral("  %1. %2: %3 %4")
                  .arg(p.value("probe", 0) + 1)
                  .arg(place(search, whereOf(p)), num(p.value("objective", json())), interval(p.value("ci95", json())));
        if (!p.value("feasible", true))
            line += QStringLiteral(" (infeasible: %1)").arg(str(p, "why"));
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

QString searchHeadline(const json& search)
{
    return search.is_object() ? headline(search).join(QLatin1Char('\n')) : QString();
}

QString searchMarkdown(const json& search)
{
    if (!search.is_object())
        return {};
    const QStringList top = headline(search);
    QStringList lines { QStringLiteral("## Search"), QString(), top.join(QStringLiteral("  \n")), QString(),
        QStringLiteral("| probe | %1 | %2 | 95 % interval | note |")
            .arg(knobNames(search).join(QStringLiteral(" | ")), str(search, "metric")),
        QStringLiteral("|---:|%1---:|---|---|").arg(QStringLiteral("---:|").repeated(knobNames(search).size())) };
    for (const json& p : search.value("probes", json::array())) {
        if (!p.is_object())
            continue;
        QStringList where;
        const json& at = whereOf(p);
        for (const QString& name : knobNames(search))
            where << value(at.is_object() ? at.value(name.toStdString(), json()) : at);
        lines << QStringLiteral("| %1 | %2 | %3 | %4 | %5 |")
                     .arg(p.value("probe", 0) + 1)
                     .arg(where.join(QStringLiteral(" | ")), num(p.value("objective", json())),
                         interval(p.value("ci95", json())),
                         p.value("feasible", true) ? QString() : QStringLiteral("infeasible: ") + str(p, "why"));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

json searchJson(const json& search)
{
    if (!search.is_object())
        return nullptr;
    json out = search;
    out.erase("type");
    out["text"] = headline(search).join(QLatin1Char('\n')).toStdString();
    return out;
}

} // namespace ks
