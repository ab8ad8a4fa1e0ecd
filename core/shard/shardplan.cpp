#include "shard/shardplan.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QTimeZone>

#include <cmath>

namespace ks {

std::optional<ShardId> parseShardId(const QString& text, QString* error)
{
    static const QRegularExpression form(QStringLiteral("^(\\d{1,6})/(\\d{1,6})$"));
    const QRegularExpressionMatch match = form.match(text.trimmed());
    if (!match.hasMatch()) {
        *error = QStringLiteral("--shard: expected I/N (e.g. 0/4), got \"%1\"").arg(text);
        return std::nullopt;
    }
    const ShardId shard { match.captured(1).toInt(), match.captured(2).toInt() };
    if (shard.count < 1 || shard.index >= shard.count) {
        *error = QStringLiteral("--shard %1: the index counts from 0 and must be below the shard count").arg(text);
        return std::nullopt;
    }
    return shard;
}

int shardShare(int total, const ShardId& shard)
{
    return total / shard.count + (shard.index < total % shard.count ? 1 : 0);
}

QString applyShard(ExperimentSpec& spec, const ShardId& shard)
{
    if (spec.server)
        return QStringLiteral(
            "server: a sharded run cannot launch its server: each shard would start its own, and restarting one "
            "between configurations would need a barrier across machines. Start the server yourself and give "
            "only target.base_url (docs/distributed.md)");
    if (spec.configs.size() != 1)
        return QStringLiteral("configs: a sharded run measures one configuration per invocation (this spec has %1); "
                              "run one invocation per configuration (docs/distributed.md)")
            .arg(spec.configs.size());
    for (std::size_t i = 0; i < spec.arms.size(); ++i) {
        ArmSpec& arm = spec.arms[i];
        const QString path = QStringLiteral("arms[%1]").arg(i);
        if (arm.mode == LoadSpec::Mode::Trace)
            return QStringLiteral("%1: a trace arm replays one recorded schedule and cannot be split over shards; "
                                  "run it from one host")
                .arg(path);
        if (arm.mode == LoadSpec::Mode::Concurrency) {
            if (arm.concurrency < shard.count)
                return QStringLiteral("%1.concurrency: %2 streams cannot be split over %3 shards (each needs one)")
                    .arg(path)
                    .arg(arm.concurrency)
                    .arg(shard.count);
            arm.concurrency = shardShare(arm.concurrency, shard);
        } else {
            arm.rate /= shard.count;
        }
        if (arm.requests > 0) {
            if (arm.requests < shard.count)
                return QStringLiteral("%1.requests: %2 requests cannot be split over %3 shards (each needs one)")
                    .arg(path)
                    .arg(arm.requests)
                    .arg(shard.count);
            arm.requests = shardShare(arm.requests, shard);
        }
        arm.warmup = shardShare(arm.warmup, shard);
    }
    if (shard.index > 0) {
        spec.probes.reset();
        spec.seed += quint64(shard.index);
    }
    return {};
}

std::optional<qint64> parseStartAt(const QString& text, QString* error)
{
    const QString trimmed = text.trimmed();
    static const QRegularExpression epoch(QStringLiteral("^\\d{9,11}(\\.\\d{1,6})?$"));
    if (epoch.match(trimmed).hasMatch())
        return qint64(std::llround(trimmed.toDouble() * 1000));
    QDateTime at = QDateTime::fromString(trimmed, Qt::ISODateWithMs);
    if (!at.isValid())
        at = QDateTime::fromString(trimmed, Qt::ISODate);
    if (!at.isValid()) {
        *error = QStringLiteral("--start-at: expected an ISO 8601 time (2026-11-30T18:00:00Z) or seconds since the "
                                "Unix epoch, got \"%1\"")
                     .arg(text);
        return std::nullopt;
    }
    if (at.timeSpec() == Qt::LocalTime) // no offset given: the shards of a cluster agree on UTC, not on a zone
        at.setTimeZone(QTimeZone::utc());
    return at.toMSecsSinceEpoch();
}

nlohmann::json shardObject(const ShardId& shard, const QString& host, std::optional<qint64> startAtMs)
{
    nlohmann::json object = { { "index", shard.index }, { "count", shard.count }, { "host", host.toStdString() } };
    if (startAtMs)
        object["start_at"]
            = QDateTime::fromMSecsSinceEpoch(*startAtMs).toUTC().toString(Qt::ISODateWithMs).toStdString();
    return object;
}

} // namespace ks
