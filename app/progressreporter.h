#pragma once

#include "load/loadrunner.h"

#include <QElapsedTimer>
#include <QString>

/// Progress of a run on stderr: a bar redrawn in place on a terminal, a plain
/// line every few seconds otherwise, nothing with --progress none.
class ProgressReporter {
public:
    enum class Mode { Auto, Bar, None };
    static bool parseMode(const QString& text, Mode* mode);

    explicit ProgressReporter(Mode mode);
    void update(const ks::LoadProgress& progress);
    void finish();

private:
    bool m_bar;
    bool m_enabled;
    QElapsedTimer m_sincePrint;
    bool m_printed = false;
};
