#pragma once

#include "metrics/aggregator.h"
#include "metrics/specdecode.h"
#include "store/requestrecord.h"

#include <QObject>
#include <QString>
#include <QVector>

namespace ks {

struct RunInfo {
    QString run;
    QString config;
    QString arm;
    QString model;
    QByteArray json; ///< the `run` line as written
};

/// Where runs come from: a live experiment or a saved file. Both emit the same
/// value-type events, so everything downstream (aggregation, charts, reports)
/// has one path for live and replayed data (DESIGN.md section 3).
class RunSource : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    virtual void start() = 0;
    virtual void stop() = 0;

signals:
    /// The `experiment` line (JSON text, cleaned by the reader).
    void experimentRead(const QByteArray& json);
    void runStarted(const ks::RunInfo& info);
    void recordsReady(const QVector<ks::RequestRecord>& records);
    /// The run's stored summary line (JSON text), when the source has one.
    void runFinished(const QString& run, const QByteArray& summaryJson);
    /// A scrape of the server's metrics (-1: the server did not report it).
    void serverSampled(const QString& run, qint64 tUs, double running, double waiting, double kvCacheUsage);
    /// A scrape's speculative-decoding figures (a `server` line's `spec_decode`).
    void specDecodeSampled(const QString& run, const ks::SpecDecodeCounters& counters);
    /// A sample of the GPUs (`gpu` lines: nvidia-smi during the run).
    void gpuSampled(const QString& run, qint64 tUs, const ks::GpuGauges& gauges);
    /// A server lifecycle event or a line of server output (`server_event` records).
    void serverEventRead(const QString& run, const QString& event, const QString& detail);
    /// The live run took a snapshot here (`tick` lines, µs on the run's clock):
    /// every record and scrape of the run before it has been sent.
    void snapshotTaken(const QString& run, qint64 tUs);
    /// A line the source could not use; replay goes on.
    void issueFound(qint64 line, const QString& message);
    void finished();
};

} // namespace ks

Q_DECLARE_METATYPE(ks::RunInfo)
