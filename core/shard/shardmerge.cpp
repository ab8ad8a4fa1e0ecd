#include "shard/shardmerge.h"

#include "metrics/armverdicts.h"
#include "metrics/runsummary.h"
#include "store/recordjson.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <map>

namespace ks {

namespace {

using json = nlohmann::json;

struct PartIdentity {
    int index = -1;
    int count = 0;
    QString host;
    std::string startAt; ///< empty when the shard started without --start-at
};

QString name(const ShardPart& part)
{
    return QFileInfo(part.path).fileName();
}

// The shard object every run line of a part carries; they must agree.
QString identityOf(const ShardPart& part, PartIdentity* out)
{
    if (part.file.runs.empty())
        return QStringLiteral("%1: no run in this part (did the shard start?)").arg(part.path);
    for (const RunData& run : part.file.runs) {
        const auto shard = run.info.find("shard");
        if (shard == run.info.end() || !shard->contains("index") || !shard->contains("count"))
            return QStringLiteral("%1: run %2 has no shard object (index, count): not a part of a sharded run "
                                  "(knobscope run SPEC --shard I/N)")
                .arg(part.path, run.run);
        PartIdentity id;
        id.index = (*shard)["index"].get<int>();
        id.count = (*shard)["count"].get<int>();
        id.host = QString::fromStdString(shard->value("host", std::string()));
        id.startAt = shard->value("start_at", std::string());
        if (out->count == 0) {
            *out = id;
        } else if (id.index != out->index || id.count != out->count || id.startAt != out->startAt) {
            return QStringLiteral("%1: run %2 names shard %3/%4, an earlier run of the file %5/%6")
                .arg(part.path, run.run)
                .arg(id.index)
                .arg(id.count)
                .arg(out->index)
                .arg(out->count);
        }
    }
    if (out->count < 1 || out->index < 0 || out->index >= out->count)
        return QStringLiteral("%1: shard %2/%3 is not a valid shard").arg(part.path).arg(out->index).arg(out->count);
    return {};
}

QString isoOfUnixUs(qint64 us)
{
    return QDateTime::fromMSecsSinceEpoch(us / 1000).toUTC().toString(Qt::ISODateWithMs);
}

void shift(RequestRecord& r, qint64 offsetUs)
{
    r.tSchedUs += offsetUs;
    r.tSendUs += offsetUs;
    if (r.tWireUs >= 0)
        r.tWireUs += offsetUs;
    if (r.tHeadersUs >= 0)
        r.tHeadersUs += offsetUs;
}

// What only the parts' own summaries know: the client's load, the server's
// samples, the gentle check, the status and warnings.
void overlayPartSummaries(json& summary, const std::vector<std::pair<int, const RunData*>>& sources)
{
    bool allGentle = true;
    bool anyGentleKnown = false;
    bool clientKnown = false;
    bool clientBound = false;
    double lagMax = 0;
    double cpuMax = 0;
    int connectFailures = 0;
    json perShard = json::array();
    json server;
    std::string status = "completed";
    json warnings = summary.value("warnings", json::array());
    for (const auto& [index, run] : sources) {
        const json part = run->summary ? runSummaryToJson(*run->summary) : json(); // merged key by key
        if (!part.is_object()) {
            status = "incomplete";
            warnings.push_back("shard " + std::to_string(index)
                + ": the part has no summary line (the shard did not finish); its records so far are included");
            continue;
        }
        if (const auto gentle = part.find("gentle"); gentle != part.end()) {
            anyGentleKnown = true;
            allGentle = allGentle && gentle->get<bool>();
        }
        if (const auto client = part.find("client"); client != part.end()) {
            clientKnown = true;
            clientBound = clientBound || client->value("client_bound", false);
            lagMax = std::max(lagMax, client->value("loop_lag_p99_ms", 0.0));
            cpuMax = std::max(cpuMax, client->value("cpu_utilisation", 0.0));
            connectFailures += client->value("connect_failures", 0);
            json entry = *client;
            entry["shard"] = index;
            perShard.push_back(entry);
        }
        if (const auto s = part.find("server"); s != part.end()) {
            if (server.is_null()) {
                server = *s; // every shard scraped the same server: the lowest index's samples stand
            } else {
                for (const char* key : { "max_waiting", "max_running" }) {
                    const auto mine = s->find(key);
                    if (mine != s->end() && mine->is_number()
                        && (!server[key].is_number() || mine->get<double>() > server[key].get<double>()))
                        server[key] = *mine;
                }
            }
        }
        const std::string partStatus = part.value("status", std::string("completed"));
        if (partStatus != "completed" && status == "completed")
            status = partStatus;
        if (const auto drift = part.find("drift"); drift != part.end())
            summary["drift"] = *drift;
        for (const json& w : part.value("warnings", json::array())) {
            const std::string text = "shard " + std::to_string(index) + ": " + w.get<std::string>();
            if (std::find(warnings.begin(), warnings.end(), json(text)) == warnings.end())
                warnings.push_back(text);
        }
    }
    if (clientKnown)
        // The worst client bounds the measurement: the largest of the shards' values, each its own p99.
        summary["client"] = { { "client_bound", clientBound }, { "loop_lag_p99_ms", lagMax },
            { "cpu_utilisation", cpuMax }, { "connect_failures", connectFailures }, { "shards", perShard } };
    if (!server.is_null())
        summary["server"] = server;
    if (anyGentleKnown)
        summary["gentle"] = allGentle;
    summary["status"] = status;
    summary["warnings"] = warnings;
}

} // namespace

bool readShardPart(const QString& path, ShardPart* out, QString* error)
{
    out->path = path;
    if (!readRunFile(path, &out->file, error))
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    std::vector<RunFileIssue> repeated; // readRunFile() has listed them already
    qint64 lineNumber = 0;
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        ++lineNumber;
        if (!line.contains("\"server")) // the request lines, nearly all of them, need no decoding here
            continue;
        if (line.endsWith('\n'))
            line.chop(1);
        RunLine decoded = readRunLine(line, lineNumber, repeated);
        if (decoded.kind == RunLine::Kind::Server || decoded.kind == RunLine::Kind::ServerEvent)
            out->serverLines.push_back(std::move(decoded.object));
    }
    return true;
}

namespace {

// The merge proper; on a refusal it sets out.error and returns early, leaving
// whatever it had built, which mergeShards() drops.
void mergeInto(const std::vector<ShardPart>& parts, ShardMerge& out)
{
    if (parts.empty()) {
        out.error = QStringLiteral("no parts to merge");
        return;
    }
    std::vector<PartIdentity> ids(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (QString problem = identityOf(parts[i], &ids[i]); !problem.isEmpty()) {
            out.error = problem;
            return;
        }
    }
    const int count = ids[0].count;
    std::vector<const ShardPart*> byIndex(std::size_t(count), nullptr);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (ids[i].count != count) {
            out.error = QStringLiteral("%1 is shard %2 of %3, but %4 is of %5 shards: parts of different runs")
                            .arg(parts[i].path)
                            .arg(ids[i].index)
                            .arg(ids[i].count)
                            .arg(parts[0].path)
                            .arg(count);
            return;
        }
        if (ids[i].startAt != ids[0].startAt) {
            out.error = QStringLiteral("%1 was to start at %2, but %3 at %4: parts of different invocations")
                            .arg(parts[i].path,
                                ids[i].startAt.empty() ? QStringLiteral("once ready")
                                                       : QString::fromStdString(ids[i].startAt),
                                parts[0].path,
                                ids[0].startAt.empty() ? QStringLiteral("once ready")
                                                       : QString::fromStdString(ids[0].startAt));
            return;
        }
        if (parts[i].file.spec() != parts[0].file.spec()) {
            out.error = QStringLiteral("%1 and %2 are parts of different experiments (their specs differ)")
                            .arg(parts[i].path, parts[0].path);
            return;
        }
        const ShardPart*& slot = byIndex[std::size_t(ids[i].index)];
        if (slot) {
            out.error = QStringLiteral("%1 and %2 are both shard %3/%4")
                            .arg(slot->path, parts[i].path)
                            .arg(ids[i].index)
                            .arg(count);
            return;
        }
        slot = &parts[i];
    }
    for (int index = 0; index < count; ++index) {
        if (!byIndex[std::size_t(index)]) {
            out.error = QStringLiteral("shard %1/%2 is missing: give all %2 parts").arg(index).arg(count);
            return;
        }
    }

    // Parts whose experiment line was unreadable (skipped) still get one, so the merged file starts as files do.
    json experiment = byIndex[0]->file.experiment.is_object()
        ? byIndex[0]->file.experiment
        : json { { "type", "experiment" }, { "schema", kSchemaVersion } };
    json from = json::array();
    for (int index = 0; index < count; ++index)
        from.push_back({ { "index", index }, { "file", name(*byIndex[std::size_t(index)]).toStdString() } });
    experiment["merged_from"] = from;
    out.lines.push_back(experiment);
    const Slo slo = experimentSlo(experiment);

    // Every run of shard 0, in its order; load runs must be in every part, probes are shard 0's alone.
    for (const RunData& first : byIndex[0]->file.runs) {
        std::vector<std::pair<int, const RunData*>> sources;
        for (int index = 0; index < count; ++index) {
            const std::vector<RunData>& runs = byIndex[std::size_t(index)]->file.runs;
            const auto it
                = std::find_if(runs.begin(), runs.end(), [&](const RunData& r) { return r.run == first.run; });
            if (it != runs.end()) {
                sources.push_back({ index, &*it });
            } else if (!first.info.contains("probes")) {
                out.error = QStringLiteral("run %1 is missing from shard %2 (%3): was that shard stopped early?")
                                .arg(first.run)
                                .arg(index)
                                .arg(byIndex[std::size_t(index)]->path);
                return;
            }
        }
        qint64 t0Min = std::numeric_limits<qint64>::max();
        qint64 t0Max = std::numeric_limits<qint64>::min();
        for (const auto& [index, run] : sources) {
            const auto t0 = run->info.find("t0_unix_us");
            if (t0 == run->info.end()) {
                out.error = QStringLiteral("%1: run %2 has no t0_unix_us, so it cannot be put on the other parts' "
                                           "time line (written by an older knobscope?)")
                                .arg(byIndex[std::size_t(index)]->path, run->run);
                return;
            }
            t0Min = std::min(t0Min, t0->get<qint64>());
            t0Max = std::max(t0Max, t0->get<qint64>());
        }
        std::vector<RequestRecord> records;
        json hosts = json::array();
        json partsObject = json::array();
        for (const auto& [index, run] : sources) {
            const qint64 offset = run->info["t0_unix_us"].get<qint64>() - t0Min;
            for (RequestRecord r : run->requests) {
                shift(r, offset);
                r.id = r.id * count + index;
                records.push_back(std::move(r));
            }
            const json& shard = run->info["shard"];
            hosts.push_back(shard.value("host", std::string()));
            partsObject.push_back({ { "index", index }, { "host", shard.value("host", std::string()) },
                { "t0_unix_us", run->info["t0_unix_us"] }, { "requests", run->requests.size() } });
        }
        std::stable_sort(records.begin(), records.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.tSendUs < b.tSendUs; });

        json runLine = sources.front().second->info;
        runLine["type"] = "run";
        runLine.erase("shard");
        runLine.erase("ticks"); // the parts' snapshot instants do not describe the union: replay takes its own
        runLine.erase("t0_monotonic_us"); // each host's own monotonic clock: meaningless across them
        runLine["t0_unix_us"] = t0Min;
        runLine["t0_wall"] = isoOfUnixUs(t0Min).toStdString();
        runLine["merged"]
            = { { "shards", count }, { "start_skew_us", t0Max - t0Min }, { "hosts", hosts }, { "parts", partsObject } };
        out.lines.push_back(runLine);
        for (const RequestRecord& r : records)
            out.lines.push_back(toJson(r));
        // Server samples: every shard scraped the one server; the lowest index's stand, on the merged time line.
        const auto& [serverIndex, serverRun] = sources.front();
        const qint64 serverOffset = serverRun->info["t0_unix_us"].get<qint64>() - t0Min;
        for (const json& line : byIndex[std::size_t(serverIndex)]->serverLines) {
            if (line.value("run", std::string()) != first.run.toStdString())
                continue;
            json shifted = line;
            if (const auto t = shifted.find("t_us"); t != shifted.end() && t->is_number_integer())
                *t = t->get<qint64>() + serverOffset;
            out.lines.push_back(shifted);
        }
        json summary = summarizeRun(first.run, first.config, first.arm, records, slo);
        summary["peak_in_flight"] = peakInFlight(records);
        overlayPartSummaries(summary, sources);
        const RunData& front = *sources.front().second;
        const json part = front.summary ? runSummaryToJson(*front.summary) : json();
        for (const char* key : { "repeat", "round" }) { // the run's place in the plan, the same in every part
            if (part.is_object() && part.contains(key))
                summary[key] = part[key];
        }
        summary["type"] = "summary";
        out.lines.push_back(summary);
        out.runs.push_back({ first.run, int(records.size()), int(sources.size()), t0Max - t0Min });
    }
}

} // namespace

ShardMerge mergeShards(const std::vector<ShardPart>& parts)
{
    ShardMerge out;
    mergeInto(parts, out);
    if (!out.error.isEmpty()) {
        out.lines.clear();
        out.runs.clear();
    }
    return out;
}

} // namespace ks
