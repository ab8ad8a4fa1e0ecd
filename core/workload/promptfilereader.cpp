#include "workload/promptfilereader.h"

#include "util/boundedjson.h"

#include <nlohmann/json.hpp>

// Why a hand-written splitter for the array form, not nlohmann's SAX parser over
// the whole file: a conversation is read by the same code as a JSON Lines line,
// so each array element only has to be cut out and parsed on its own, and
// cutting needs nothing but string, escape and nesting state (no decoding, no
// allocation, no copy unless an element straddles two pieces). A SAX handler
// would have to rebuild every conversation from events, and nlohmann's lexer
// decodes every string into a std::string first, the assistant replies (most
// of the file's bytes) included.

namespace ks {

namespace {

using json = nlohmann::json;

struct Roles {
    const char* listKey; ///< "messages" / "conversations"
    const char* roleKey; ///< "role" / "from"
    const char* textKey; ///< "content" / "value"
    const char* system;
    const char* user;
    const char* assistant;
    /// ShareGPT as published: "user" is a human turn too, any other speaker
    /// ("gpt", "chatgpt", "bing", "bard", ...) a reply, and a conversation with
    /// no human turn is skipped and counted instead of refusing the file.
    bool lenient;
};

constexpr Roles kOpenAi { "messages", "role", "content", "system", "user", "assistant", false };
constexpr Roles kShareGpt { "conversations", "from", "value", "system", "human", "gpt", true };

constexpr char kBom[] = "\xEF\xBB\xBF";

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Checks one conversation object and collects its kept texts in order (system
// messages first, then user turns); returns the reason it is refused, or an
// empty string.
QString readConversation(
    const json& record, const Roles& roles, std::vector<const std::string*>& texts, int* system, bool* skip)
{
    texts.clear();
    *system = 0;
    *skip = false;
    if (!record.is_object())
        return QStringLiteral("expected a JSON object with \"%1\"").arg(QLatin1String(roles.listKey));
    const auto list = record.find(roles.listKey);
    if (roles.lenient && list != record.end() && list->is_array() && list->empty()) {
        *skip = true;
        return {};
    }
    if (list == record.end() || !list->is_array() || list->empty())
        return QStringLiteral("\"%1\" must be a non-empty list").arg(QLatin1String(roles.listKey));
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& m = (*list)[i];
        // Built only for a refusal: a large file has a million messages.
        const auto where = [&] { return QStringLiteral("%1[%2]").arg(QLatin1String(roles.listKey)).arg(i); };
        if (!m.is_object())
            return where() + QStringLiteral(": expected an object");
        const auto role = m.find(roles.roleKey);
        const auto text = m.find(roles.textKey);
        if (role == m.end() || !role->is_string())
            return where() + QStringLiteral(".%1: expected a string").arg(QLatin1String(roles.roleKey));
        if (text == m.end() || !text->is_string())
            return where() + QStringLiteral(".%1: expected a string").arg(QLatin1String(roles.textKey));
        const std::string& r = role->get_ref<const std::string&>();
        if (r == roles.system) {
            if (std::size_t(*system) != texts.size())
                return where() + QStringLiteral(": a system message after the first user turn is not supported");
            ++*system;
            texts.push_back(&text->get_ref<const std::string&>());
        } else if (r == roles.user || (roles.lenient && r == "user")) {
            texts.push_back(&text->get_ref<const std::string&>());
        } else if (r != roles.assistant && !roles.lenient) {
            return where()
                + QStringLiteral(".%1: expected \"%2\", \"%3\" or \"%4\", got \"%5\"")
                      .arg(QLatin1String(roles.roleKey), QLatin1String(roles.system), QLatin1String(roles.user),
                          QLatin1String(roles.assistant), QString::fromStdString(r));
        }
    }
    if (texts.size() == std::size_t(*system)) {
        if (roles.lenient) {
            *skip = true;
            return {};
        }
        return QStringLiteral("the conversation has no \"%1\" turn").arg(QLatin1String(roles.user));
    }
    return {};
}

} // namespace

PromptFileReader::PromptFileReader(PromptDataset::Format format, const QString& path)
{
    m_dataset.path = path;
    m_dataset.format = format;
}

bool PromptFileReader::fail(const QString& message)
{
    m_error = m_dataset.path + QStringLiteral(": ") + message;
    return false;
}

bool PromptFileReader::feed(QByteArrayView piece)
{
    if (!m_error.isEmpty())
        return false;
    m_hash.addData(piece);
    qsizetype from = 0;
    if (m_layout == Layout::Unknown)
        from = detectLayout(piece);
    bool ok = true;
    if (m_layout == Layout::Lines)
        ok = feedLines(piece, from);
    else if (m_layout == Layout::Array)
        ok = feedArray(piece, from);
    m_offset += piece.size();
    return ok;
}

// Skips a leading byte order mark and whitespace (counting the empty lines a
// JSON Lines file would have) up to the first other byte, which settles the
// layout; returns where reading goes on in this piece.
qsizetype PromptFileReader::detectLayout(QByteArrayView piece)
{
    for (qsizetype i = 0; i < piece.size(); ++i) {
        const char c = piece[i];
        const qint64 at = m_offset + i;
        if (at < 3 && at == m_bomBytes && c == kBom[at]) {
            ++m_bomBytes;
            continue;
        }
        if (m_bomBytes == 0 || m_bomBytes == 3) {
            if (isJsonSpace(c)) {
                m_lines += c == '\n';
                continue;
            }
            if (c == '[') {
                m_layout = Layout::Array;
                return i + 1;
            }
        }
        // Not an array, or the start of a byte order mark that is not one: the
        // bytes go to the JSON parser as they are, which names the line.
        m_layout = Layout::Lines;
        if (m_bomBytes < 3)
            m_pending = QByteArray(kBom, m_bomBytes);
        return i;
    }
    return piece.size();
}

bool PromptFileReader::feedLines(QByteArrayView piece, qsizetype from)
{
    while (from < piece.size()) {
        const qsizetype newline = piece.indexOf('\n', from);
        if (newline < 0) {
            m_pending.append(piece.sliced(from));
            return true;
        }
        ++m_lines;
        bool ok;
        if (m_pending.isEmpty()) {
            ok = takeLine(piece.sliced(from, newline - from));
        } else {
            m_pending.append(piece.sliced(from, newline - from));
            ok = takeLine(m_pending);
            m_pending.truncate(0);
        }
        if (!ok)
            return false;
        from = newline + 1;
    }
    return true;
}

bool PromptFileReader::takeLine(QByteArrayView line)
{
    line = line.trimmed();
    if (line.isEmpty())
        return true;
    const QString error = take(line);
    return error.isEmpty() || fail(QStringLiteral("line %1: ").arg(m_lines) + error);
}

bool PromptFileReader::takeElement(QByteArrayView element)
{
    const QString error = take(element);
    return error.isEmpty()
        || fail(QStringLiteral("element %1 (byte %2): ").arg(m_elements).arg(m_elementStart) + error);
}

// One record (a line or an array element) into the dataset, or why it is refused.
QString PromptFileReader::take(QByteArrayView record)
{
    bool tooDeep = false;
    const json doc = parseJsonBounded(record, &tooDeep);
    if (tooDeep)
        return QStringLiteral("nested deeper than %1 levels").arg(kMaxNesting);
    if (doc.is_discarded())
        return QStringLiteral("not valid JSON");
    const Roles& roles = m_dataset.format == PromptDataset::Format::ShareGpt ? kShareGpt : kOpenAi;
    int system = 0;
    bool skip = false;
    const QString error = readConversation(doc, roles, m_texts, &system, &skip);
    if (!error.isEmpty())
        return error;
    if (skip) {
        ++m_dataset.skippedConversations;
        return {};
    }
    for (const std::string* text : m_texts)
        m_dataset.addText(QByteArrayView(text->data(), qsizetype(text->size())));
    m_dataset.closeConversation(system, int(m_texts.size()) - system);
    return {};
}

bool PromptFileReader::feedArray(QByteArrayView piece, qsizetype from)
{
    const char* bytes = piece.data();
    const qsizetype size = piece.size();
    qsizetype elementBegin = 0; // where this piece's part of the current element starts
    qsizetype i = from;
    while (i < size) {
        const char c = bytes[i];
        switch (m_state) {
        case State::BeforeElement:
            if (isJsonSpace(c)) {
                ++i;
            } else if (c == ']' && !m_afterComma) {
                m_state = State::Closed;
                ++i;
            } else {
                ++m_elements;
                m_elementStart = m_offset + i;
                if (c != '{')
                    return fail(QStringLiteral("element %1 (byte %2): %3")
                                    .arg(m_elements)
                                    .arg(m_elementStart)
                                    .arg(c == ']' ? QStringLiteral("expected an element after ','")
                                                  : QStringLiteral("expected a JSON object")));
                m_state = State::InElement;
                m_depth = 1;
                m_inString = m_escape = false;
                elementBegin = i++;
            }
            break;
        case State::InElement:
            i = scanElement(bytes, i, size);
            if (m_depth == 0) {
                const QByteArrayView part(bytes + elementBegin, i - elementBegin);
                bool ok;
                if (m_pending.isEmpty()) {
                    ok = takeElement(part);
                } else {
                    m_pending.append(part);
                    ok = takeElement(m_pending);
                    m_pending.truncate(0);
                }
                if (!ok)
                    return false;
                m_state = State::AfterElement;
            }
            break;
        case State::AfterElement:
            if (isJsonSpace(c)) {
                ++i;
            } else if (c == ',' || c == ']') {
                m_state = c == ',' ? State::BeforeElement : State::Closed;
                m_afterComma = true;
                ++i;
            } else {
                return fail(
                    QStringLiteral("byte %1: expected ',' or ']' after element %2").arg(m_offset + i).arg(m_elements));
            }
            break;
        case State::Closed:
            if (!isJsonSpace(c))
                return fail(QStringLiteral("byte %1: unexpected data after the array's closing ']'").arg(m_offset + i));
            ++i;
            break;
        }
    }
    if (m_state == State::InElement)
        m_pending.append(QByteArrayView(bytes + elementBegin, size - elementBegin));
    return true;
}

// Runs to the end of the current element (returns the index after its closing
// brace, with m_depth 0) or of the piece. Most bytes are inside strings, so
// those are skipped in a tight loop that stops only at a quote or a backslash.
qsizetype PromptFileReader::scanElement(const char* bytes, qsizetype i, qsizetype size)
{
    while (i < size) {
        if (m_inString) {
            if (m_escape) {
                m_escape = false;
                ++i;
                continue;
            }
            while (i < size && bytes[i] != '"' && bytes[i] != '\\')
                ++i;
            if (i == size)
                break;
            if (bytes[i++] == '\\')
                m_escape = true;
            else
                m_inString = false;
            continue;
        }
        switch (bytes[i++]) {
        case '"':
            m_inString = true;
            break;
        case '{':
        case '[':
            ++m_depth;
            break;
        case '}':
        case ']':
            if (--m_depth == 0)
                return i;
            break;
        default:
            break;
        }
    }
    return size;
}

std::variant<PromptDataset, QString> PromptFileReader::finish()
{
    if (m_error.isEmpty()) {
        if (m_layout == Layout::Lines && !m_pending.isEmpty()) {
            ++m_lines;
            takeLine(m_pending);
            m_pending.clear();
        } else if (m_layout == Layout::Array && m_state == State::InElement) {
            fail(QStringLiteral("element %1 (byte %2): the file ends inside this element (truncated?)")
                     .arg(m_elements)
                     .arg(m_elementStart));
        } else if (m_layout == Layout::Array && m_state != State::Closed) {
            fail(QStringLiteral("the file ends before the array's closing ']' (after element %1; truncated?)")
                     .arg(m_elements));
        }
    }
    if (m_error.isEmpty() && m_dataset.conversationCount() == 0)
        fail(QStringLiteral("no conversations in the file"));
    if (!m_error.isEmpty())
        return m_error;
    m_dataset.sha256 = QString::fromLatin1(m_hash.result().toHex());
    m_dataset.squeeze();
    return std::move(m_dataset);
}

} // namespace ks
