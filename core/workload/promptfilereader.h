#pragma once

#include "workload/promptdataset.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QCryptographicHash>
#include <QString>

#include <string>
#include <variant>
#include <vector>

namespace ks {

/// Reads a prompt file fed in pieces of any size, so that a file of any length
/// costs the turns it keeps plus one line or array element, never the whole
/// file. Two layouts, told apart by the first byte that is not whitespace
/// (after an optional UTF-8 byte order mark): `[` starts one JSON array of
/// conversations (ShareGPT as published), anything else is JSON Lines. Both
/// give each conversation to the same per-conversation reader, and hash every
/// byte as it passes.
class PromptFileReader {
public:
    PromptFileReader(PromptDataset::Format format, const QString& path);

    /// Takes the next piece of the file; false once the file is refused (stop
    /// reading then: finish() says why).
    bool feed(QByteArrayView piece);
    /// After the last piece: the dataset, or why the file is refused.
    std::variant<PromptDataset, QString> finish();

private:
    enum class Layout { Unknown, Lines, Array };
    enum class State { BeforeElement, InElement, AfterElement, Closed };

    qsizetype detectLayout(QByteArrayView piece);
    bool feedLines(QByteArrayView piece, qsizetype from);
    bool feedArray(QByteArrayView piece, qsizetype from);
    qsizetype scanElement(const char* bytes, qsizetype from, qsizetype size);
    bool takeLine(QByteArrayView line);
    bool takeElement(QByteArrayView element);
    QString take(QByteArrayView record);
    bool fail(const QString& message);

    PromptDataset m_dataset;
    QCryptographicHash m_hash { QCryptographicHash::Sha256 };
    QString m_error;
    Layout m_layout = Layout::Unknown;
    qint64 m_offset = 0; ///< file offset of the first byte of the piece being read
    QByteArray m_pending; ///< the start of a line or element that began in an earlier piece
    int m_bomBytes = 0; ///< bytes of a UTF-8 byte order mark seen at the start
    std::vector<const std::string*> m_texts; ///< the kept texts of the record being read

    qint64 m_lines = 0; ///< JSON Lines: lines completed so far

    State m_state = State::BeforeElement;
    bool m_afterComma = false;
    bool m_inString = false;
    bool m_escape = false;
    qint64 m_depth = 0;
    qint64 m_elements = 0; ///< array elements begun so far
    qint64 m_elementStart = 0; ///< file offset of the current element's first byte
};

} // namespace ks
