#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// One knob of a search over several (`"knobs": {"NAME": {...}}`).
struct SearchKnob {
    QString name;
    double min = 0;
    double max = 0;
    bool log2 = false;
    bool integer = false;
    bool cheaperHigher = false; ///< which end of its range costs less

    /// The value's place in the range on the knob's scale: 0 at min, 1 at max.
    double toUnit(double value) const;
    /// The value at a place in the range (clamped; an integer knob rounded).
    double fromUnit(double unit) const;
    /// 0 at the cheaper end, 1 at the other.
    double cost(double value) const;
    /// The value as the knob is written (an integer knob as a JSON integer).
    nlohmann::json valueJson(double value) const;
};

/// The search for the best value of one knob (docs/experiments.md, "Search"):
/// every probe is the spec's one configuration with the knob set to a value
/// the search chooses, run with every arm on a freshly started server.
struct SearchSpec {
    enum class Scale { Linear, Log2 };
    QString knob;
    double min = 0;
    double max = 0;
    Scale scale = Scale::Linear;
    bool integer = false;
    QString arm; ///< whose summary gives the objective
    /// "goodput_req_per_s", "req_per_s", "out_tok_per_s", "capacity" (a sweep
    /// arm's), or a latency percentile "ttft_ms.p99" (tpot_ms, itl_ms, e2e_ms; p50/p90/p95/p99).
    QString objective = QStringLiteral("goodput_req_per_s");
    bool minimize = false; ///< default: true for a latency objective, false otherwise
    int budget = 8; ///< probes at most, each a server start
    /// A probe within this fraction of the top objective (or whose interval
    /// overlaps the top's) is on the plateau: good enough.
    double tolerance = 0.02;
    /// Which end of the range costs less (memory, GPUs): the search recommends
    /// the plateau's cheapest probe and resolves that edge before refining the top.
    enum class Cheaper { Lower, Higher };
    Cheaper cheaper = Cheaper::Lower;
    /// A search over two or more knobs (docs/experiments.md, "Search over
    /// several knobs"): sorted by name; `knob`, `min`, `max`, `scale`,
    /// `integer` and `cheaper` above are then unused. Empty: the one-knob search.
    std::vector<SearchKnob> knobs;

    bool multi() const { return !knobs.empty(); }
    /// Whether `name` is a knob the search sets.
    bool sets(const QString& name) const;

    /// The latency metric ("ttft_ms") and percentile ("p99") of a latency objective; empty otherwise.
    std::pair<QString, QString> latencyObjective() const;
    /// The probe's label: "max_num_seqs=64".
    QString probeLabel(double value) const;
    /// The value as the knob is written (an integer knob as a JSON integer).
    nlohmann::json knobValue(double value) const;
    /// A multi-knob probe's label: "max_num_batched_tokens=1024,max_num_seqs=48".
    QString pointLabel(const std::vector<double>& point) const;
    /// A multi-knob point as written: {"max_num_batched_tokens": 1024, "max_num_seqs": 48}.
    nlohmann::json pointJson(const std::vector<double>& point) const;
};

} // namespace ks
