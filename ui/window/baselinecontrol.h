#pragma once

// The window's side of the Live page's baseline: the file read in the
// background, drawn on the page when it is read, and what became of it.

#include <QObject>
#include <QString>

namespace ks {

class BaselineLoader;
class LivePage;

class BaselineControl : public QObject {
    Q_OBJECT
public:
    BaselineControl(LivePage* live, QObject* parent);

    /// Reads `path` as the baseline (empty: none); changed() says when it is drawn or why not.
    void setFile(const QString& path);

signals:
    /// A line for the status bar.
    void status(const QString& line);
    /// A line for the log.
    void logged(const QString& line);
    /// A baseline was read and drawn (`error` empty), could not be used, or was removed (both empty).
    void changed(const QString& path, const QString& error);

private:
    LivePage* m_live;
    BaselineLoader* m_loader;
};

} // namespace ks
