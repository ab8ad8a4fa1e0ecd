#include "spec/gridexpansion.h"

#include <QHash>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>

namespace ks::spec {

namespace {

// Knobs whose type knobscope knows; others may be any scalar.
struct KnownKnob {
    const char* name;
    bool integer;
    double min;
    double max;
};
const KnownKnob kKnownKnobs[] = {
    { "max_num_seqs", true, 1, 1e6 },
    { "max_num_batched_tokens", true, 1, 1e9 },
    { "max_model_len", true, 1, 1e9 },
    { "tensor_parallel_size", true, 1, 1024 },
    { "gpu_memory_utilization", false, 0.01, 1.0 },
};

// One list of a grid: the model's or a knob's values.
struct Axis {
    std::string name; ///< "model" or the knob's name
    std::vector<json> values;
};

bool checkKnobValue(Checker& c, const std::string& name, const json& value, const QString& path)
{
    if (!value.is_primitive() || value.is_null()) {
        c.fail(path, QStringLiteral("expected a number, string or boolean"));
        return false;
    }
    for (const KnownKnob& known : kKnownKnobs) {
        if (name != known.name)
            continue;
        if (!value.is_number() || (known.integer && !value.is_number_integer())) {
            c.fail(
                path, known.integer ? QStringLiteral("expected a whole number") : QStringLiteral("expected a number"));
            return false;
        }
        if (value.get<double>() < known.min || value.get<double>() > known.max) {
            c.fail(path,
                QStringLiteral("expected a value in [%1, %2], got %3")
                    .arg(known.min)
                    .arg(known.max)
                    .arg(value.get<double>()));
            return false;
        }
    }
    return true;
}

// A value as label text: the way ConfigSpec::knobText writes it into a command.
QString valueText(const json& value)
{
    ConfigSpec one;
    one.knobs["v"] = value;
    return one.knobText(QStringLiteral("v")).value_or(QString());
}

// The keys of configs[index].knobs in the order the file writes them.
std::vector<std::string> writtenKnobOrder(const json& knobs, const nlohmann::ordered_json* written, std::size_t index)
{
    std::vector<std::string> order;
    if (written && written->contains("configs") && (*written)["configs"].is_array()
        && index < (*written)["configs"].size()) {
        const auto& config = (*written)["configs"][index];
        if (config.is_object() && config.contains("knobs") && config["knobs"].is_object())
            for (const auto& item : config["knobs"].items())
                order.push_back(item.key());
    }
    if (order.size() != knobs.size()) { // not the same document: keep the parsed order
        order.clear();
        for (const auto& item : knobs.items())
            order.push_back(item.key());
    }
    return order;
}

QString fillLabel(const QString& templ, const ConfigSpec& config)
{
    QString out;
    qsizetype last = 0;
    auto matches = serverPlaceholderPattern().globalMatch(templ);
    while (matches.hasNext()) {
        const auto m = matches.next();
        const QString name = m.captured(1);
        out += templ.mid(last, m.capturedStart() - last);
        out += name == QLatin1String("model") ? config.model : config.knobText(name).value_or(m.captured(0));
        last = m.capturedEnd();
    }
    return out + templ.mid(last);
}

// "max_num_seqs=16, model=sim-8b": what tells one point of a grid from another.
QString pointText(const json& values, const QString& separator)
{
    QStringList pairs;
    for (const auto& item : values.items())
        pairs << QString::fromStdString(item.key()) + QLatin1Char('=') + valueText(item.value());
    return pairs.join(separator);
}

struct ConfigReader {
    Checker& c;
    ExperimentSpec& spec;
    QHash<QString, QString> labelOrigin; ///< label -> the configuration that gave it first
    QStringList counts; ///< "configs[i]: N" of every grid
    std::size_t total = 0;
    bool overCap = false;

    // Reads configs[index]: its fixed fields into `base`, its lists into `axes`.
    bool read(const json& j, const QString& path, const nlohmann::ordered_json* written, std::size_t index,
        ConfigSpec& base, std::vector<Axis>& axes)
    {
        bool ok = true;
        if (const auto model = j.find("model"); model != j.end() && model->is_array()) {
            Axis axis { "model", {} };
            if (model->empty())
                c.fail(child(path, "model"), QStringLiteral("expected a non-empty list of model names"));
            for (std::size_t k = 0; k < model->size(); ++k) {
                const json& m = (*model)[k];
                if (m.is_string() && !m.get_ref<const std::string&>().empty())
                    axis.values.push_back(m);
                else
                    c.fail(indexed(child(path, "model"), k), QStringLiteral("expected a non-empty string"));
            }
            ok = ok && !axis.values.empty() && axis.values.size() == model->size();
            axes.push_back(std::move(axis));
        } else {
            base.model = c.string(j, path, "model", true).value_or(QString());
        }
        const auto knobs = j.find("knobs");
        if (knobs == j.end())
            return ok;
        const QString knobsPath = child(path, "knobs");
        if (!c.isObject(*knobs, knobsPath))
            return false;
        for (const std::string& name : writtenKnobOrder(*knobs, written, index)) {
            const json& value = (*knobs)[name];
            const QString knobPath = child(knobsPath, name.c_str());
            if (!value.is_array()) {
                ok = checkKnobValue(c, name, value, knobPath) && ok;
                base.knobs[name] = value;
                continue;
            }
            if (value.empty()) {
                c.fail(knobPath, QStringLiteral("expected a non-empty list of values (a list makes a grid)"));
                ok = false;
            }
            for (std::size_t k = 0; k < value.size(); ++k)
                ok = checkKnobValue(c, name, value[k], indexed(knobPath, k)) && ok;
            axes.push_back({ name, value.get<std::vector<json>>() });
        }
        return ok;
    }

    // The template label's placeholders must name the model or a knob.
    bool checkTemplate(const QString& templ, const QString& path, const ConfigSpec& base, const std::vector<Axis>& axes)
    {
        bool ok = true;
        auto matches = serverPlaceholderPattern().globalMatch(templ);
        while (matches.hasNext()) {
            const std::string name = matches.next().captured(1).toStdString();
            const bool known = name == "model" || base.knobs.contains(name)
                || std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == name; });
            if (!known) {
                c.fail(child(path, "label"),
                    QStringLiteral("placeholder {%1} is neither {model} nor one of this configuration's knobs")
                        .arg(QString::fromStdString(name)));
                ok = false;
            }
        }
        return ok;
    }

    void add(ConfigSpec config, const QString& path, const QString& missingHint)
    {
        const QString origin = config.grid.is_null()
            ? path
            : QStringLiteral("%1 (%2)").arg(path, pointText(config.grid["values"], QStringLiteral(", ")));
        if (const auto first = labelOrigin.constFind(config.label);
            first != labelOrigin.cend() && !config.label.isEmpty())
            c.fail(child(path, "label"),
                QStringLiteral("duplicate label \"%1\": %2 and %3 both give it%4")
                    .arg(config.label, *first, origin, missingHint));
        else
            labelOrigin.insert(config.label, origin);
        spec.configs.push_back(std::move(config));
    }

    void expand(const ConfigSpec& base, const std::vector<Axis>& axes, const QString& templ, const QString& path)
    {
        const bool templated = serverPlaceholderPattern().match(templ).hasMatch();
        QString hint; // a template that leaves out a list gives every value of that list one label
        for (const Axis& axis : axes)
            if (templated && !templ.contains(QLatin1Char('{') + QString::fromStdString(axis.name) + QLatin1Char('}')))
                hint += QStringLiteral("; put {%1} in the label").arg(QString::fromStdString(axis.name));
        std::vector<std::size_t> at(axes.size(), 0);
        for (;;) {
            ConfigSpec config = base;
            json values = json::object();
            for (std::size_t a = 0; a < axes.size(); ++a) {
                const json& v = axes[a].values[at[a]];
                values[axes[a].name] = v;
                if (axes[a].name == "model")
                    config.model = QString::fromStdString(v.get<std::string>());
                else
                    config.knobs[axes[a].name] = v;
            }
            if (!axes.empty())
                config.grid = { { "from", templ.toStdString() }, { "values", values } };
            config.label = fillLabel(templ, config);
            if (!axes.empty() && !templated) {
                QStringList pairs { templ }; // in the grid's order, model first, not sorted
                for (std::size_t a = 0; a < axes.size(); ++a)
                    pairs << QString::fromStdString(axes[a].name) + QLatin1Char('=') + valueText(axes[a].values[at[a]]);
                config.label = pairs.join(QLatin1Char(' '));
            }
            add(std::move(config), path, hint);
            // The last list varies fastest, as nested loops written in the spec's order.
            std::size_t a = axes.size();
            while (a > 0 && ++at[a - 1] == axes[a - 1].values.size())
                at[--a] = 0;
            if (a == 0)
                return;
        }
    }

    void readOne(const json& j, std::size_t i, const nlohmann::ordered_json* written)
    {
        const QString path = indexed(QStringLiteral("configs"), i);
        if (!c.isObject(j, path))
            return;
        c.rejectUnknown(j, path, { "label", "model", "knobs" });
        ConfigSpec base;
        base.specIndex = i;
        const QString templ = c.string(j, path, "label", true).value_or(QString());
        std::vector<Axis> axes;
        if (!read(j, path, written, i, base, axes) || !checkTemplate(templ, path, base, axes))
            return;
        double points = 1;
        QStringList factors;
        for (const Axis& axis : axes) {
            points *= double(axis.values.size());
            factors << QString::number(axis.values.size());
        }
        if (points > kMaxConfigurations) {
            const QLocale english(QLocale::English, QLocale::UnitedStates);
            c.fail(path,
                QStringLiteral("expands to %1 configurations (%2); at most %3")
                    .arg(english.toString(points, 'f', 0), factors.join(QStringLiteral(" × ")))
                    .arg(kMaxConfigurations));
            overCap = true;
            return;
        }
        if (!axes.empty())
            counts << QStringLiteral("%1: %2").arg(path).arg(points);
        total += std::size_t(points);
        expand(base, axes, templ, path);
    }
};

} // namespace

void readConfigs(Checker& c, const json& doc, const QByteArray& text, ExperimentSpec& spec)
{
    const auto it = doc.find("configs");
    if (it == doc.end() || !it->is_array() || it->empty()) {
        c.fail(QStringLiteral("configs"), QStringLiteral("expected a non-empty list of configurations"));
        return;
    }
    const bool anyList = std::any_of(it->begin(), it->end(), [](const json& j) {
        return j.is_object() && j.contains("knobs") && j["knobs"].is_object()
            && std::any_of(j["knobs"].begin(), j["knobs"].end(), [](const json& v) { return v.is_array(); });
    });
    std::optional<nlohmann::ordered_json> written;
    if (anyList) // the order a grid expands in is the order its knobs are written
        written = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    ConfigReader reader { c, spec, {}, {}, 0, false };
    for (std::size_t i = 0; i < it->size(); ++i)
        reader.readOne((*it)[i], i, written && !written->is_discarded() ? &*written : nullptr);
    if (!reader.overCap && reader.total > std::size_t(kMaxConfigurations))
        c.fail(QStringLiteral("configs"),
            QStringLiteral("the configurations expand to %1 in all (%2); at most %3")
                .arg(reader.total)
                .arg(reader.counts.join(QStringLiteral(", ")))
                .arg(kMaxConfigurations));
}

} // namespace ks::spec
