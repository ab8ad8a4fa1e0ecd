#include "datalocations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ks {

QString experimentTemplateDirectory()
{
    const QString beside
        = QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../share/knobscope/experiments"));
    if (QFileInfo(beside).isDir())
        return beside;
    return QStandardPaths::locate(
        QStandardPaths::GenericDataLocation, QStringLiteral("knobscope/experiments"), QStandardPaths::LocateDirectory);
}

} // namespace ks
