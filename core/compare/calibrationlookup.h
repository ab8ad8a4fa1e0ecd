#pragma once

#include "compare/calibration.h"

#include <QString>

#include <memory>

namespace ks {

/// The A/A calibration a comparison of `file` uses (docs/metrics.md, "Calibration").
struct CalibrationLookup {
    std::shared_ptr<const Calibration> calibration; ///< null: none
    QString path; ///< the file it came from, or the one named that could not be used
    /// For people, when the spec names a calibration that is not there: the comparison goes on without one.
    QString note;
    /// The calibration given or named exists but cannot be read as one; the comparison should stop and say so.
    QString error;
};

/// `explicitPath` (`--calibration FILE`) when it is given; else the string
/// `"calibration"` of the run file's experiment spec, a path relative to the
/// folder of `runFilePath` (or absolute), when that file exists. Both
/// `compare` and the Compare page come here, so they use the same file.
CalibrationLookup lookUpCalibration(const QString& explicitPath, const RunFile& file, const QString& runFilePath);

} // namespace ks
