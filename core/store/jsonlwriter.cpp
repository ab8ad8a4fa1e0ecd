#include "store/jsonlwriter.h"

namespace ks {

bool JsonlWriter::open(const QString& path, QString* error)
{
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString());
        return false;
    }
    return true;
}

void JsonlWriter::write(const nlohmann::json& object)
{
    std::string line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    m_file.write(line.data(), qint64(line.size()));
}

void JsonlWriter::flush()
{
    m_file.flush();
}

void JsonlWriter::close()
{
    if (m_file.isOpen()) {
        m_file.flush();
        m_file.close();
    }
}

} // namespace ks
