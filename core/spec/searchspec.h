#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

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

    /// The latency metric ("ttft_ms") and percentile ("p99") of a latency objective; empty otherwise.
    std::pair<QString, QString> latencyObjective() const;
    /// The probe's label: "max_num_seqs=64".
    QString probeLabel(double value) const;
    /// The value as the knob is written (an integer knob as a JSON integer).
    nlohmann::json knobValue(double value) const;
};

} // namespace ks
