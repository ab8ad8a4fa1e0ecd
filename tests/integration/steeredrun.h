#pragma once

// What tst_steering and tst_steerrate share: knobscope-sim writing its truth
// log (when the server itself saw each request arrive and end), an ad-hoc
// `knobscope run --control stdin` against it, and the conditions a test waits
// on before it steers.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

class SimProcess;

namespace steered {

/// Now on the truth log's clock (CLOCK_MONOTONIC).
qint64 steadyNowUs();

/// Starts `sim` as sim-1.8b with 64 batch slots, its truth log at `truthPath`.
bool startSim(SimProcess& sim, const QString& truthPath, QString* error);

/// Starts `client` (knobscope) on an ad-hoc run of sim-1.8b at `port`, 16
/// output tokens a request, with `load` (e.g. --concurrency 4 --duration 120),
/// steered from its stdin, writing `out`.
bool startClient(QProcess& client, quint16 port, const QStringList& load, const QString& out);

/// Reads the client's stderr into `text`; true once `text` contains `what`.
bool readUntil(QProcess& client, QByteArray& text, const QByteArray& what);

/// Whether the arm has started: its run line is in `path`. The runner takes a
/// steering command only from then on; it writes that line once the load has
/// started, after the "[1/1] adhoc" progress line (which comes too early to steer).
bool armStarted(const QString& path);

} // namespace steered
