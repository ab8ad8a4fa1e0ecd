#include "compare/calibrationlookup.h"

#include <QDir>
#include <QFileInfo>

namespace ks {

namespace {

CalibrationLookup readFrom(const QString& path, const QString& named)
{
    CalibrationLookup out;
    out.path = path;
    QString error;
    std::optional<Calibration> calibration = readCalibration(path, &error);
    if (!calibration) {
        out.error = QStringLiteral("%1 %2: %3").arg(named, path, error);
        return out;
    }
    out.calibration = std::make_shared<const Calibration>(std::move(*calibration));
    return out;
}

} // namespace

CalibrationLookup lookUpCalibration(const QString& explicitPath, const RunFile& file, const QString& runFilePath)
{
    if (!explicitPath.isEmpty())
        return readFrom(explicitPath, QStringLiteral("--calibration"));
    const nlohmann::json& spec = file.spec();
    const auto named = spec.is_object() ? spec.find("calibration") : spec.end();
    if (!spec.is_object() || named == spec.end())
        return {};
    CalibrationLookup out;
    if (!named->is_string() || named->get<std::string>().empty()) {
        out.note = QStringLiteral("the spec's \"calibration\" is not a file name (a string); compared without a "
                                  "calibration");
        return out;
    }
    const QString given = QString::fromStdString(named->get<std::string>());
    // Relative to the run file, so a folder of a run and its calibration can move together.
    const QString path
        = QFileInfo(given).isAbsolute() ? given : QDir::cleanPath(QFileInfo(runFilePath).absoluteDir().filePath(given));
    if (!QFileInfo::exists(path)) {
        out.path = path;
        out.note = QStringLiteral("the spec names the calibration %1, which is not there (%2); compared without a "
                                  "calibration")
                       .arg(given, path);
        return out;
    }
    return readFrom(path, QStringLiteral("the spec's calibration"));
}

} // namespace ks
