#pragma once

#include "load/loadrunner.h"
#include "telemetry/metricsscraper.h"

#include <QCoreApplication>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace ks {

/// Live control of the arm now running (docs/experiments.md, "Steering"): its
/// load goes on at a new concurrency or rate as a segment, a run of its own
/// named ARM~SETTING (#N when the setting was in force before), whose run line
/// carries `control` and which is summarized as a step of a sweep over that
/// setting, so compare and the knee chart group them. Keeps the arm's
/// segments until it ends; writes no file.
class ArmSteering {
    Q_DECLARE_TR_FUNCTIONS(ArmSteering)
public:
    /// One run of an arm: what the runner summarizes when the arm ends.
    struct Segment {
        QString run;
        QString arm;
        nlohmann::json runLine;
        ServerTally server;
        nlohmann::json gpu;
        nlohmann::json sweep; ///< a steered arm's: its summary's `sweep`
        nlohmann::json control; ///< a segment after the first: its `control`
    };
    /// What the runner knows of its arm, for whether it can be steered.
    struct ArmState {
        LoadRunner* load = nullptr;
        bool running = false; ///< between the load's start and its end
        bool stopping = false;
        bool probePass = false;
        bool planned = false; ///< a sweep step or a repeat
    };
    /// A steer the load took: the new segment's names and its `control`.
    struct Change {
        QString arm, run;
        int repeat = 1; ///< the same setting again: a repeat of its segment
        const char* kind = "concurrency"; ///< or "rate"
        nlohmann::json value, from;
    };

    /// An arm starts with this load: the settings in force.
    void beginArm(const LoadSpec& load);
    /// Asks the load for `concurrency` streams from now on, as a new segment of
    /// `run` (of arm `arm`). Empty when the load did not change: then `refusal`
    /// says why, or is empty when the setting is in force already.
    std::optional<Change> steer(
        int concurrency, const ArmState& state, const QString& run, const QString& arm, QString* refusal);
    /// The same for a rate arm: arrivals at `rate` per second, a segment named ARM~rR.
    std::optional<Change> steerRate(
        double rate, const ArmState& state, const QString& run, const QString& arm, QString* refusal);
    /// Ends the run now going (at a steer, or at the arm's end).
    void endSegment(QString run, QString arm, nlohmann::json runLine, ServerTally server, nlohmann::json gpu);
    /// After endSegment(): the run line of the segment `change` starts, `t_us` into the arm.
    nlohmann::json startLine(const Change& change, qint64 tUs);
    /// The arm's records, each segment's apart, in the order of `segments`.
    static std::vector<std::vector<RequestRecord>> splitBySegment(
        std::vector<RequestRecord> records, const std::vector<Segment>& segments);
    /// Every ended segment, in order; none is left.
    std::vector<Segment> takeSegments() { return std::exchange(m_segments, {}); }

private:
    QString whyNot(const ArmState& state, LoadSpec::Mode mode) const;
    /// The change's names for `setting` (c32, r4.5) while `run` of `arm` is running.
    Change namesFor(const QString& setting, const QString& run, const QString& arm) const;

    std::vector<Segment> m_segments;
    int m_concurrency = 0; ///< of the running arm, as steered
    double m_rate = 0; ///< of the running rate arm, as steered
};

} // namespace ks
