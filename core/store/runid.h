#pragma once

#include <QString>

namespace ks {

/// A run's name, taken apart once: `CONFIG/ARM@STEP#N~SEGMENT` (docs/formats.md,
/// "Run files"). CONFIG is the configuration's label (absent for an ad-hoc
/// `knobscope run --base-url` run, which is named by its label alone), ARM the
/// arm as the spec names it, STEP a sweep step's value (`knee@4`, `knee@sync`),
/// N a repeat (`stress#2`; 1 when absent), SEGMENT a steered segment's setting
/// (`c32`, `r4.5`), itself with `#M` when the same setting came back. Every
/// name is printed by toString() and read by parse(): nothing else splits one.
struct RunId {
    QString config; ///< empty when the name has no `/`
    QString arm; ///< the arm alone: no step, repeat or segment
    QString step; ///< the sweep step's value as written; empty for a plain arm
    int repeat = 1;
    QString segment; ///< after `~`; empty when not steered

    static RunId parse(const QString& name);
    QString toString() const;

    bool hasConfig() const { return !config.isEmpty(); }
    bool isSweepStep() const { return !step.isEmpty(); }
    bool isSegment() const { return !segment.isEmpty(); }
    /// ARM@STEP#N: the arm's run as the plan named it, without its segment.
    QString armRun() const;
    /// The name up to its segment: CONFIG/ARM@STEP#N.
    QString unsegmented() const;
    /// The name without `CONFIG/`: ARM@STEP#N~SEGMENT.
    QString withoutConfig() const;
    /// The configuration the run belongs to: CONFIG, or an ad-hoc run's label.
    QString configOrLabel() const;
    /// The segment's setting without its `#M` (`c32`); empty when not steered.
    QString setting() const;
};

} // namespace ks
