#pragma once

#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// Appends one JSON object per line. The owner calls flush() after each batch
/// (at least every 100 ms during a run), so a killed run leaves a readable prefix.
class JsonlWriter {
public:
    bool open(const QString& path, QString* error);
    void write(const nlohmann::json& object);
    void flush();
    void close();
    bool isOpen() const { return m_file.isOpen(); }
    QString errorString() const { return m_file.errorString(); }

private:
    QFile m_file;
};

} // namespace ks
