#pragma once

#include "libraryoptions.h"
#include "shard/shardplan.h"

#include <QHostAddress>

#include <optional>

/// What `knobscope run SPEC.json` adds for scale-out (docs/distributed.md).
struct RunExtras {
    std::optional<ks::ShardId> shard; ///< --shard I/N
    std::optional<qint64> startAtMs; ///< --start-at, ms since the Unix epoch
    int metricsPort = -1; ///< --metrics-port; -1: none
    /// --metrics-host: the address the endpoint listens on; loopback unless asked
    /// (a pod passes 0.0.0.0 so the cluster's Prometheus can scrape it).
    QHostAddress metricsHost = QHostAddress(QHostAddress::LocalHost);
    bool controlStdin = false; ///< --control stdin: steer the running arm (docs/experiments.md, "Steering")
    int calibrationRuns = 0; ///< --aa N: an A/A calibration of N rounds; 0: none
    QString calibrationBaseline; ///< --baseline LABEL with --aa: the configuration calibrated
    LibraryChoice library; ///< --library / --no-library: where the finished run file is catalogued
};
