#pragma once

#include "spec/experimentspec.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// Which part of an experiment's load one invocation runs (`--shard I/N`).
struct ShardId {
    int index = 0;
    int count = 1;
};

/// Parses "I/N" (0 <= I < N). On failure returns nothing and sets `error`.
std::optional<ShardId> parseShardId(const QString& text, QString* error);

/// This shard's share of `total` when it is split over `shard.count` shards:
/// equal parts, the remainder going one each to the lowest indices.
int shardShare(int total, const ShardId& shard);

/// Turns `spec` into shard `shard`'s part of it (docs/distributed.md): every
/// arm's concurrency, request count and warm-up are split with shardShare(),
/// its rate divided by the shard count; probes stay on shard 0 only; shards
/// other than 0 use seed + index, so their prompts and arrival times differ
/// from shard 0's instead of repeating them. `spec.raw` is left as given: the
/// part's experiment line names the whole experiment, which merge checks.
/// Returns an error (naming the field) when the spec cannot be sharded: it
/// launches a server, has more than one configuration, or an arm too small to
/// give every shard at least one stream or request.
QString applyShard(ExperimentSpec& spec, const ShardId& shard);

/// The wall-clock start time of `--start-at`: ISO 8601 (UTC unless it carries
/// an offset) or seconds since the Unix epoch. Milliseconds since the epoch,
/// or nothing with `error` set.
std::optional<qint64> parseStartAt(const QString& text, QString* error);

/// The `shard` object of a part's run lines (docs/formats.md).
nlohmann::json shardObject(const ShardId& shard, const QString& host, std::optional<qint64> startAtMs);

} // namespace ks
