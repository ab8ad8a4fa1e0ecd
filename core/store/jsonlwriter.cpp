#include "store/jsonlwriter.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {

namespace {
// A batch this large goes out before flush() is called: a run that writes much
// between flushes still learns of a full disk early, and memory stays bounded.
constexpr std::size_t kEarlyFlushBytes = std::size_t(1) << 20;
} // namespace

JsonlWriter::~JsonlWriter()
{
    close();
}

bool JsonlWriter::open(const QString& path, QString* error)
{
    m_path = path;
    m_error.clear();
    m_pending.clear();
    m_written = 0;
    m_file.setFileName(path);
    // Unbuffered: flush() hands whole lines to the kernel in one write of its own.
    // Readable too: the runner reads an arm's lines back for its summary (readBack).
    if (!m_file.open(QIODevice::ReadWrite | QIODevice::Truncate | QIODevice::Unbuffered)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, m_file.errorString());
        return false;
    }
    return true;
}

bool JsonlWriter::write(const nlohmann::json& object)
{
    if (failed() || !m_file.isOpen())
        return false;
    m_pending += object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    m_pending += '\n';
    if (m_pending.size() >= kEarlyFlushBytes)
        return flush();
    return true;
}

bool JsonlWriter::flush()
{
    if (failed() || !m_file.isOpen())
        return false;
    const int fd = m_file.handle();
    std::size_t done = 0;
    while (done < m_pending.size()) {
        const ssize_t n = ::write(fd, m_pending.data() + done, m_pending.size() - done);
        if (n > 0) {
            done += std::size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        const QString why = QString::fromLocal8Bit(std::strerror(n < 0 ? errno : ENOSPC));
        // Part of a batch got out: cut it back so the file ends on a whole line.
        if (done > 0 && ::ftruncate(fd, m_written) == 0)
            ::lseek(fd, m_written, SEEK_SET);
        return fail(QStringLiteral("cannot write the run file %1: %2").arg(m_path, why));
    }
    m_written += qint64(done);
    m_pending.clear();
    // Writes to a deleted file succeed and go nowhere: ask the kernel whether
    // the file still has a name (a removed folder takes the name with it).
    struct stat st = {};
    if (::fstat(fd, &st) == 0 && st.st_nlink == 0)
        return fail(QStringLiteral("the run file %1 was deleted while the run was writing it (was its folder "
                                   "removed?)")
                        .arg(m_path));
    return true;
}

bool JsonlWriter::close()
{
    if (!m_file.isOpen())
        return !failed();
    const bool ok = flush();
    m_file.close();
    return ok;
}

bool JsonlWriter::readBack(qint64 from, const std::function<void(QByteArrayView line)>& onLine, QString* error) const
{
    if (!m_file.isOpen()) {
        *error = QStringLiteral("the run file %1 is closed").arg(m_path);
        return false;
    }
    constexpr std::size_t kChunk = std::size_t(1) << 20;
    std::string buffer;
    std::string chunk(kChunk, '\0');
    for (qint64 at = from; at < m_written;) {
        const ssize_t n = ::pread(m_file.handle(), chunk.data(), std::min<qint64>(kChunk, m_written - at), at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = QStringLiteral("cannot read back the run file %1: %2")
                         .arg(m_path, QString::fromLocal8Bit(std::strerror(n < 0 ? errno : EIO)));
            return false;
        }
        at += n;
        buffer.append(chunk.data(), std::size_t(n));
        std::size_t start = 0;
        for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1)
            onLine(QByteArrayView(buffer.data() + start, qsizetype(end - start)));
        buffer.erase(0, start);
    }
    return true;
}

bool JsonlWriter::fail(const QString& why)
{
    m_error = why;
    m_pending.clear();
    return false;
}

} // namespace ks
