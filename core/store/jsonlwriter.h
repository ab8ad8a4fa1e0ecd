#pragma once

#include <QByteArrayView>
#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace ks {

/// Appends one JSON object per line. Lines collect in memory and reach the file
/// when the owner calls flush() (after each batch, at least every 100 ms during a
/// run), each flush one write of whole lines, so a killed run leaves a readable
/// prefix that ends on a line boundary.
///
/// Every write and flush is checked: a full disk, a file over the size limit or a
/// run file deleted under the writer (its directory removed) is an error that
/// names the file. The first error sticks; later writes do nothing and return
/// false, and the file keeps what was written before, cut back to the last whole
/// line if the failing write got only part of a batch out.
class JsonlWriter {
public:
    ~JsonlWriter();

    bool open(const QString& path, QString* error);
    /// Queues one line; false once the writer has failed. Writes out early when
    /// the queue grows large, so a failure can show here rather than at flush().
    bool write(const nlohmann::json& object);
    /// Writes the queued lines; false (and error() says why) when that failed.
    bool flush();
    /// Flushes and closes; false when that flush failed (or an earlier one did).
    bool close();
    bool isOpen() const { return m_file.isOpen(); }
    bool failed() const { return !m_error.isEmpty(); }
    /// Empty while all is well; otherwise what went wrong, naming the file.
    QString error() const { return m_error; }
    QString path() const { return m_path; }
    /// Bytes of whole lines in the file so far (what flush() got out).
    qint64 bytesWritten() const { return m_written; }
    /// Reads back the lines written from byte `from` on (a position
    /// bytesWritten() gave after a flush), through the writer's own descriptor,
    /// so it works even if the file lost its name. False, with `error`, when a
    /// read fails.
    bool readBack(qint64 from, const std::function<void(QByteArrayView line)>& onLine, QString* error) const;

private:
    bool fail(const QString& why);

    QString m_path;
    QFile m_file;
    std::string m_pending;
    qint64 m_written = 0; ///< bytes of whole lines in the file
    QString m_error;
};

} // namespace ks
