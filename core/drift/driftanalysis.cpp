#include "drift/driftanalysis.h"

#include "util/qstringtext.h"

#include <QHash>
#include <QSet>

#include <map>

namespace ks {

namespace {

nlohmann::json list(const QStringList& ids)
{
    nlohmann::json out = nlohmann::json::array();
    for (const QString& id : ids)
        out.push_back(text(id));
    return out;
}

bool sameOutput(const ProbeOutput& a, const ProbeOutput& b)
{
    return a.contentSha256 == b.contentSha256 && a.reasoningSha256 == b.reasoningSha256;
}

using OutputsById = QHash<QString, const ProbeOutput*>;

OutputsById indexById(const ProbePass& pass)
{
    OutputsById out;
    for (const ProbeOutput& o : pass.outputs)
        out.insert(o.probe, &o);
    return out;
}

/// Same/Changed/Error/Missing of one output against another.
ProbeState compare(const ProbeOutput* reference, const ProbeOutput* other)
{
    if (!other)
        return ProbeState::Missing;
    if (!other->ok)
        return ProbeState::Error;
    if (!reference || !reference->ok)
        return ProbeState::Missing;
    return sameOutput(*reference, *other) ? ProbeState::Same : ProbeState::Changed;
}

void addUnique(QStringList& list, const QString& id)
{
    if (!list.contains(id))
        list << id;
}

} // namespace

QString DriftReport::Column::label() const
{
    QString s = config;
    if (source > 0)
        s = QStringLiteral("[%1] ").arg(source + 1) + s;
    if (restart > 0)
        s += QStringLiteral(" restart %1").arg(restart);
    return s + QStringLiteral(" #%1").arg(repeat + 1);
}

ProbeOutput probeOutputOf(const RequestRecord& r, bool withText)
{
    ProbeOutput o;
    o.probe = r.probe;
    o.order = r.id;
    o.ok = r.ok;
    o.error = r.error;
    // Records hold raw digests; the drift report and its pages show hex.
    o.contentSha256 = r.outputSha256.toHex();
    o.reasoningSha256 = r.reasoningSha256.toHex();
    if (withText) {
        o.content = r.outputText;
        o.reasoning = r.reasoningText;
    }
    return o;
}

std::vector<ProbePass> probePassesOf(const RunFile& file, int source, nlohmann::json* setIdentity)
{
    std::vector<ProbePass> passes;
    for (const RunData& run : file.runs) {
        const auto probes = run.info.find("probes");
        if (probes == run.info.end() || !probes->is_object())
            continue;
        if (setIdentity && setIdentity->is_null())
            *setIdentity = *probes;
        std::map<int, ProbePass> byRepeat;
        for (const RequestRecord& r : run.requests) {
            if (r.probe.isEmpty())
                continue;
            byRepeat[std::max(0, r.probeRepeat)].outputs.push_back(probeOutputOf(r, true));
        }
        for (auto& [repeat, pass] : byRepeat) {
            pass.source = source;
            pass.config = run.config;
            pass.model = QString::fromStdString(run.info.value("model", std::string()));
            pass.restart = probes->value("restart", 0);
            pass.repeat = repeat;
            passes.push_back(std::move(pass));
        }
    }
    return passes;
}

bool sameProbeSet(const nlohmann::json& a, const nlohmann::json& b, QString* problem)
{
    auto describe = [](const nlohmann::json& s) {
        return QStringLiteral("%1 version %2 (sha256 %3)")
            .arg(QString::fromStdString(s.value("set", std::string("?"))),
                QString::fromStdString(s.value("set_version", std::string("?"))),
                QString::fromStdString(s.value("sha256", std::string("?"))).left(12));
    };
    if (a.value("set", std::string()) == b.value("set", std::string())
        && a.value("set_version", std::string()) == b.value("set_version", std::string())
        && a.value("sha256", std::string()) == b.value("sha256", std::string()))
        return true;
    *problem = QStringLiteral("the files used different probe sets: %1 against %2; outputs of different prompts "
                              "cannot be compared")
                   .arg(describe(a), describe(b));
    return false;
}

DriftReport analyzeDrift(const std::vector<ProbePass>& passes, nlohmann::json set)
{
    DriftReport report;
    report.set = std::move(set);
    QSet<QString> seen;
    for (const ProbePass& pass : passes) {
        // Outputs arrive in completion order; rows follow the probe set's order.
        std::vector<const ProbeOutput*> ordered;
        for (const ProbeOutput& o : pass.outputs)
            ordered.push_back(&o);
        std::stable_sort(ordered.begin(), ordered.end(),
            [](const ProbeOutput* a, const ProbeOutput* b) { return a->order < b->order; });
        for (const ProbeOutput* o : ordered) {
            if (!seen.contains(o->probe)) {
                seen.insert(o->probe);
                report.probes << o->probe;
            }
        }
    }
    std::vector<OutputsById> index;
    QHash<QString, int> referenceOfModel; // model -> pass
    for (std::size_t i = 0; i < passes.size(); ++i) {
        index.push_back(indexById(passes[i]));
        if (!referenceOfModel.contains(passes[i].model))
            referenceOfModel.insert(passes[i].model, int(i));
        report.columns.push_back({ passes[i].source, passes[i].config, passes[i].restart, passes[i].repeat });
    }
    report.cells.assign(std::size_t(report.probes.size()), std::vector<ProbeState>(passes.size(), ProbeState::Missing));
    report.hashes.assign(std::size_t(report.probes.size()), std::vector<QByteArray>(passes.size()));

    // Group passes by configuration, in order; a group's first pass is its own baseline.
    std::vector<std::vector<int>> groups;
    QHash<QString, int> groupOf;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const QString key = QString::number(passes[i].source) + QLatin1Char('/') + passes[i].config;
        if (!groupOf.contains(key)) {
            groupOf.insert(key, int(groups.size()));
            groups.emplace_back();
        }
        groups[std::size_t(groupOf[key])].push_back(int(i));
    }

    for (const std::vector<int>& group : groups) {
        const ProbePass& first = passes[std::size_t(group.front())];
        const int reference = referenceOfModel.value(first.model);
        ConfigDrift drift;
        drift.source = first.source;
        drift.config = first.config;
        drift.model = first.model;
        drift.isReference = group.front() == reference;
        for (const int p : group) {
            const ProbePass& pass = passes[std::size_t(p)];
            drift.repeats = std::max(drift.repeats, pass.restart == 0 ? pass.repeat + 1 : 0);
            drift.restarts = std::max(drift.restarts, pass.restart);
            for (int row = 0; row < report.probes.size(); ++row) {
                const QString& id = report.probes[row];
                const ProbeOutput* mine = index[std::size_t(p)].value(id);
                const ProbeOutput* ref = index[std::size_t(reference)].value(id);
                const ProbeState state = compare(ref, mine);
                report.cells[std::size_t(row)][std::size_t(p)] = state;
                if (mine && mine->ok)
                    report.hashes[std::size_t(row)][std::size_t(p)] = mine->contentSha256
                        + (mine->reasoningSha256.isEmpty() ? QByteArray() : ':' + mine->reasoningSha256);
                if (mine && !mine->ok)
                    ++drift.errors;
                if (state == ProbeState::Changed) {
                    addUnique(drift.mismatches, id);
                    DriftDiff diff;
                    diff.probe = id;
                    diff.column = p;
                    const bool reasoningDiffers = ref->reasoningSha256 != mine->reasoningSha256;
                    diff.channel = reasoningDiffers ? QStringLiteral("reasoning") : QStringLiteral("content");
                    diff.reference = reasoningDiffers ? ref->reasoning : ref->content;
                    diff.other = reasoningDiffers ? mine->reasoning : mine->content;
                    if (!diff.reference.isEmpty() || !diff.other.isEmpty())
                        diff.divergence = findDivergence(diff.reference, diff.other);
                    report.diffs.push_back(std::move(diff));
                }
                if (p == group.front())
                    continue;
                const ProbeState againstFirst = compare(index[std::size_t(group.front())].value(id), mine);
                if (againstFirst == ProbeState::Changed)
                    addUnique(pass.restart == 0 ? drift.withinRun : drift.acrossRestart, id);
            }
        }
        if (!drift.isReference) {
            for (const QString& id : std::as_const(report.probes)) {
                if (compare(index[std::size_t(reference)].value(id), index[std::size_t(group.front())].value(id))
                    == ProbeState::Changed)
                    addUnique(drift.acrossConfig, id);
            }
        }
        for (const int p : group)
            drift.probes = std::max(drift.probes, int(passes[std::size_t(p)].outputs.size()));
        report.configs.push_back(std::move(drift));
    }
    return report;
}

nlohmann::json DriftReport::toJson() const
{
    nlohmann::json runs = nlohmann::json::array();
    for (const ConfigDrift& c : configs) {
        runs.push_back({ { "source", c.source }, { "config", text(c.config) }, { "model", text(c.model) },
            { "reference", c.isReference }, { "probes", c.probes }, { "repeats", c.repeats },
            { "restarts", c.restarts }, { "errors", c.errors }, { "mismatches", c.mismatches.size() },
            { "within_run", c.withinRun.size() }, { "across_restart", c.acrossRestart.size() },
            { "across_config", c.acrossConfig.size() }, { "mismatch_ids", list(c.mismatches) },
            { "within_run_ids", list(c.withinRun) }, { "across_restart_ids", list(c.acrossRestart) },
            { "across_config_ids", list(c.acrossConfig) } });
    }
    nlohmann::json diffList = nlohmann::json::array();
    for (const DriftDiff& d : diffs) {
        const Column& column = columns[std::size_t(d.column)];
        nlohmann::json j = { { "probe", text(d.probe) }, { "source", column.source }, { "config", text(column.config) },
            { "restart", column.restart }, { "repeat", column.repeat }, { "channel", text(d.channel) } };
        if (d.divergence.byte >= 0) {
            j["byte"] = d.divergence.byte;
            j["char"] = d.divergence.character;
            j["word"] = d.divergence.word;
            j["reference_excerpt"] = text(d.divergence.referenceExcerpt);
            j["other_excerpt"] = text(d.divergence.otherExcerpt);
        }
        diffList.push_back(std::move(j));
    }
    static const char* const kStateNames[] = { "same", "changed", "error", "missing" };
    nlohmann::json columnList = nlohmann::json::array();
    for (const Column& c : columns)
        columnList.push_back(
            { { "source", c.source }, { "config", text(c.config) }, { "restart", c.restart }, { "repeat", c.repeat } });
    nlohmann::json rows = nlohmann::json::array();
    for (int row = 0; row < probes.size(); ++row) {
        nlohmann::json states = nlohmann::json::array();
        nlohmann::json rowHashes = nlohmann::json::array();
        for (std::size_t c = 0; c < columns.size(); ++c) {
            states.push_back(kStateNames[int(cells[std::size_t(row)][c])]);
            const QByteArray& h = hashes[std::size_t(row)][c];
            rowHashes.push_back(h.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(h.toStdString()));
        }
        rows.push_back(
            { { "probe", text(probes[row]) }, { "states", std::move(states) }, { "sha256", std::move(rowHashes) } });
    }
    return { { "set", set.value("set", std::string()) }, { "set_version", set.value("set_version", std::string()) },
        { "sha256", set.value("sha256", std::string()) }, { "runs", std::move(runs) }, { "diffs", std::move(diffList) },
        { "matrix", { { "columns", std::move(columnList) }, { "rows", std::move(rows) } } },
        { "problems", list(problems) } };
}

} // namespace ks
