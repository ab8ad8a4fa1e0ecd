#pragma once

#include "metrics/aggregator.h"
#include "store/summaryline.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace ks {

class ReplayFeed;

/// A saved run file's snapshots, drawn faded under the Live charts.
/// They come from the same replay pipeline as any replayed file, so a baseline
/// and a live run are measured alike.
struct Baseline {
    struct Arm {
        QString run; ///< the run's name; steered segments (RUN~cN) are folded into their arm
        std::vector<RunSnapshot> snapshots; ///< in the arm's time (atS since its start)
        /// The last snapshot with completions: the arm's cumulative figures at its end.
        const RunSnapshot* final() const;
    };
    QString path;
    std::vector<Arm> arms; ///< in file order
    /// Each run's (and steered segment's) cumulative figures at its end, by run name.
    QHash<QString, RunSnapshot> finals;
    /// Each run's stored summary: TTFT and TPOT p50 (ms) as `compare` gives them.
    struct SummaryP50 {
        double ttft = -1, tpot = -1;
    };
    QHash<QString, SummaryP50> summaries;
    /// TTFT and TPOT p50 of a summary, -1 where missing or wrong-typed.
    static SummaryP50 p50Of(const RunSummary& summary);

    /// The figures a live run is compared with: those of the run of the same
    /// name (a steered segment against the same segment), else of its arm's first run.
    const RunSnapshot* finalFor(const QString& liveRun, int order) const;

    /// The arm that stands beside a live run: the one of the same name (without
    /// its steered segment), else of the same arm part (CONFIG/ARM → ARM), else
    /// the `order`-th arm (0-based) of the file; nullptr when there is none.
    const Arm* match(const QString& liveRun, int order) const;
};

/// Reads a baseline file in the background (a replay at full speed) and says
/// when it is done.
class BaselineLoader : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~BaselineLoader() override;

    /// Starts reading `path`; a load in progress is dropped. loaded() or failed() follows, never
    /// before load() returns.
    void load(const QString& path);
    /// Drops a load in progress: neither loaded() nor failed() follows.
    void cancel();

signals:
    void loaded(std::shared_ptr<const ks::Baseline> baseline);
    /// The file could not be used: missing, unreadable, or without a single run.
    void failed(const QString& path, const QString& error);

private:
    ReplayFeed* m_feed = nullptr;
    std::shared_ptr<Baseline> m_reading;
};

} // namespace ks

Q_DECLARE_METATYPE(std::shared_ptr<const ks::Baseline>)
