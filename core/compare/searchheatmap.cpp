#include "compare/searchheatmap.h"

namespace ks {

namespace {

using nlohmann::json;

QString text(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

const json* knobEntry(const json& search, const QString& name)
{
    for (const json& k : search["knobs"])
        if (k.is_object() && text(k, "name") == name)
            return &k;
    return nullptr;
}

bool samePoint(const json& a, const json& b)
{
    return a.is_object() && b.is_object() && a == b;
}

} // namespace

QStringList searchKnobNames(const json& search)
{
    QStringList names;
    if (!search.is_object() || !search.contains("knobs") || !search["knobs"].is_array())
        return names;
    for (const json& k : search["knobs"])
        if (k.is_object())
            names << text(k, "name");
    return names;
}

std::optional<SearchHeatmap> searchHeatmap(
    const json& search, const QString& xKnob, const QString& yKnob, QString* error)
{
    const QStringList names = searchKnobNames(search);
    if (names.size() < 2) {
        *error = search.is_object()
            ? QStringLiteral("the search is over one knob: its chart is knob:%1").arg(text(search, "knob"))
            : QStringLiteral("the file has no search");
        return std::nullopt;
    }
    SearchHeatmap map;
    map.xKnob = xKnob.isEmpty() ? names[0] : xKnob;
    map.yKnob = yKnob.isEmpty() ? names[1] : yKnob;
    for (const QString& knob : { map.xKnob, map.yKnob })
        if (!names.contains(knob)) {
            *error = QStringLiteral("\"%1\" is not a knob of the search (its knobs: %2)")
                         .arg(knob, names.join(QStringLiteral(", ")));
            return std::nullopt;
        }
    if (map.xKnob == map.yKnob) {
        *error = QStringLiteral("name two different knobs (heatmap:KNOB1,KNOB2)");
        return std::nullopt;
    }
    const json& x = *knobEntry(search, map.xKnob);
    const json& y = *knobEntry(search, map.yKnob);
    map.xLog2 = text(x, "scale") == QLatin1String("log2");
    map.yLog2 = text(y, "scale") == QLatin1String("log2");
    map.xMin = x.value("min", 0.0);
    map.xMax = x.value("max", 1.0);
    map.yMin = y.value("min", 0.0);
    map.yMax = y.value("max", 1.0);
    map.metric = text(search, "metric");
    map.minimize = search.value("minimize", false);
    map.stop = text(search, "stop");

    const json best = search.value("best", json());
    const json top = search.value("top", json()).is_object() ? search["top"].value("point", json()) : json();
    const json plateau = search.value("plateau", json());
    // The other knobs stay at the recommendation's values (else the top's, else the first probe's).
    json anchor = best.is_object() ? best : top;
    const json probes = search.value("probes", json::array());
    if (!anchor.is_object() && probes.is_array() && !probes.empty())
        anchor = probes.front().value("point", json());
    for (const QString& name : names)
        if (name != map.xKnob && name != map.yKnob && anchor.is_object())
            map.fixed << QStringLiteral("%1 = %2").arg(
                name, QString::fromStdString(anchor.value(name.toStdString(), json()).dump()));

    for (const json& p : probes) {
        const json point = p.value("point", json());
        if (!point.is_object() || !point.value(map.xKnob.toStdString(), json()).is_number()
            || !point.value(map.yKnob.toStdString(), json()).is_number())
            continue;
        bool atAnchor = true;
        for (const QString& name : names)
            if (name != map.xKnob && name != map.yKnob)
                atAnchor = atAnchor && anchor.is_object()
                    && point.value(name.toStdString(), json()) == anchor.value(name.toStdString(), json());
        if (!atAnchor) {
            ++map.leftOut;
            continue;
        }
        HeatmapProbe h;
        h.x = point[map.xKnob.toStdString()].get<double>();
        h.y = point[map.yKnob.toStdString()].get<double>();
        if (p.value("objective", json()).is_number())
            h.objective = p["objective"].get<double>();
        const json ci = p.value("ci95", json());
        if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
            h.low = ci[0].get<double>();
            h.high = ci[1].get<double>();
        }
        h.feasible = p.value("feasible", true) && h.objective.has_value();
        h.recommended = samePoint(point, best);
        h.top = samePoint(point, top);
        if (plateau.is_array())
            for (const json& q : plateau)
                h.plateau = h.plateau || samePoint(point, q);
        h.config = text(p, "config");
        h.why = text(p, "why");
        map.probes.push_back(std::move(h));
    }
    return map;
}

} // namespace ks
