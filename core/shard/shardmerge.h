#pragma once

#include "store/runfile.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// One part file of a sharded run (`knobscope run --shard I/N`), read by the
/// tolerant reader, plus its server samples and events (which RunFile leaves out).
struct ShardPart {
    QString path;
    RunFile file;
    std::vector<nlohmann::json> serverLines; ///< `server` and `server_event` lines, cleaned
};

/// Reads a part: readRunFile(), then the server lines through readRunLine().
bool readShardPart(const QString& path, ShardPart* out, QString* error);

/// How one run of the merged file came together.
struct MergedRunNote {
    QString run;
    int requests = 0;
    int parts = 0; ///< the parts that had this run (probe runs: shard 0's alone)
    qint64 startSkewUs = 0; ///< the latest part's t0 minus the earliest's (wall clock)
};

struct ShardMerge {
    QString error; ///< set when the parts cannot be merged (nothing else is then)
    std::vector<nlohmann::json> lines; ///< the merged run file, one JSON object a line
    std::vector<MergedRunNote> runs;
};

/// Merges the parts of one sharded run (docs/distributed.md): refuses parts of
/// different experiments, invocations or shard counts, and a missing or
/// duplicate index; puts every run's requests on one time line by the parts'
/// wall-clock t0 (t0_unix_us), makes request ids unique (id * N + index),
/// takes the union of the records and recomputes each summary from them with
/// summarizeRun(): percentiles are never averaged.
ShardMerge mergeShards(const std::vector<ShardPart>& parts);

} // namespace ks
