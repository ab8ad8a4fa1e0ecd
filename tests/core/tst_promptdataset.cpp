// Prompt files read in pieces: JSON Lines and one JSON array
// (ShareGPT as published) give the same conversations, whatever the piece size.
#include "workload/promptdataset.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace ks;
using Format = PromptDataset::Format;

namespace {

// A conversation as the test expects it: system messages, then user turns.
struct Expected {
    std::vector<QByteArray> system;
    std::vector<QByteArray> user;
    bool operator==(const Expected&) const = default;
};

std::vector<Expected> flatten(const PromptDataset& d)
{
    std::vector<Expected> out;
    for (std::size_t i = 0; i < d.conversationCount(); ++i) {
        const Conversation c = d.conversation(i);
        out.push_back({ c.system, c.userTurns });
    }
    return out;
}

QString show(const std::vector<Expected>& conversations)
{
    QStringList out;
    for (const Expected& c : conversations) {
        QStringList turns;
        for (const QByteArray& s : c.system)
            turns << QStringLiteral("system:") + QString::fromUtf8(s);
        for (const QByteArray& u : c.user)
            turns << QStringLiteral("user:") + QString::fromUtf8(u);
        out << turns.join(QLatin1Char('|'));
    }
    return out.join(QLatin1Char('\n'));
}

QByteArray inFormat(QByteArray text, Format format)
{
    const bool sharegpt = format == Format::ShareGpt;
    return text.replace("LIST", sharegpt ? "conversations" : "messages")
        .replace("ROLE", sharegpt ? "from" : "role")
        .replace("TEXT", sharegpt ? "value" : "content")
        .replace("SYS", "system")
        .replace("USER", sharegpt ? "human" : "user")
        .replace("ASSIST", sharegpt ? "gpt" : "assistant");
}

// The published file's layout (two-space indentation, one key a line) with the
// escapes a JSON writer produces: \" \\ \/ \n \t, \u00e9, a surrogate pair for
// U+1F600, raw UTF-8, and brackets inside strings.
const char kArray[] = R"json([
  {
    "id": "a_0",
    "LIST": [
      {
        "ROLE": "SYS",
        "TEXT": "be \"kind\""
      },
      {
        "ROLE": "USER",
        "TEXT": "line one\nline two \\ back\/slash \u00e9t\u00e9 \ud83d\ude00 日本"
      },
      {
        "ROLE": "ASSIST",
        "TEXT": "a reply with ] and } and [ { inside, and \"[\""
      },
      {
        "ROLE": "USER",
        "TEXT": "tab\there \"quoted\" \\\" end\\"
      }
    ]
  },
  {
    "id": "b_1",
    "LIST": [
      {
        "ROLE": "ASSIST",
        "TEXT": "starts with a reply"
      },
      {
        "ROLE": "USER",
        "TEXT": ""
      }
    ]
  }
]
)json";

// The same conversations as JSON Lines, with a blank line, a CRLF and no final newline.
const char kLines[]
    = R"json({"id":"a_0","LIST":[{"ROLE":"SYS","TEXT":"be \"kind\""},{"ROLE":"USER","TEXT":"line one\nline two \\ back\/slash \u00e9t\u00e9 \ud83d\ude00 日本"},{"ROLE":"ASSIST","TEXT":"a reply with ] and } and [ { inside, and \"[\""},{"ROLE":"USER","TEXT":"tab\there \"quoted\" \\\" end\\"}]})json"
      "\r\n\n"
      R"json({"id":"b_1","LIST":[{"ROLE":"ASSIST","TEXT":"starts with a reply"},{"ROLE":"USER","TEXT":""}]})json";

const std::vector<Expected> kExpected {
    { { "be \"kind\"" },
        { "line one\nline two \\ back/slash \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC",
            "tab\there \"quoted\" \\\" end\\" } },
    { {}, { "" } },
};

const char kOne[] = R"({"conversations":[{"from":"human","value":"a"}]})";

// The reader's verdict for every piece size from 1 to 7 bytes and for the whole
// at once; fails the test when two sizes disagree.
std::variant<PromptDataset, QString> parseAtEverySize(const QByteArray& bytes, Format format)
{
    auto whole = parsePromptDataset(bytes, format, QStringLiteral("f"));
    for (qsizetype piece = 1; piece <= 7; ++piece) {
        auto parsed = parsePromptDataset(bytes, format, QStringLiteral("f"), piece);
        const bool same = parsed.index() == whole.index()
            && (std::holds_alternative<QString>(parsed)
                    ? std::get<QString>(parsed) == std::get<QString>(whole)
                    : flatten(std::get<PromptDataset>(parsed)) == flatten(std::get<PromptDataset>(whole))
                        && std::get<PromptDataset>(parsed).sha256 == std::get<PromptDataset>(whole).sha256);
        if (!same)
            return QStringLiteral("pieces of %1 bytes disagree with the whole").arg(piece);
    }
    return whole;
}

// The same text without its line breaks and indentation (texts hold none raw).
QByteArray oneLine(QByteArray text)
{
    while (text.contains("\n "))
        text.replace("\n ", "\n");
    return text.replace("\n", "");
}

// The refusal, or an empty text for a dataset (QVERIFY2 builds its message even
// when the check passes).
QString errorOf(const std::variant<PromptDataset, QString>& parsed)
{
    const QString* error = std::get_if<QString>(&parsed);
    return error ? *error : QString();
}

QString sha256Of(const QByteArray& bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

} // namespace

class TestPromptDataset : public QObject {
    Q_OBJECT
private slots:
    void bothLayoutsGiveTheSameConversations_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("sharegpt");
        for (const bool sharegpt : { true, false }) {
            const Format format = sharegpt ? Format::ShareGpt : Format::OpenAi;
            const QByteArray name = formatName(format).toLatin1();
            QTest::newRow(name + " array") << inFormat(kArray, format) << sharegpt;
            QTest::newRow(name + " lines") << inFormat(kLines, format) << sharegpt;
            QTest::newRow(name + " array, byte order mark, CRLF")
                << QByteArray("\xEF\xBB\xBF" + inFormat(kArray, format).replace("\n", "\r\n")) << sharegpt;
            QTest::newRow(name + " lines, byte order mark")
                << QByteArray("\xEF\xBB\xBF" + inFormat(kLines, format)) << sharegpt;
            QTest::newRow(name + " array on one line, blank lines first")
                << QByteArray("\n\n \t" + oneLine(inFormat(kArray, format))) << sharegpt;
        }
    }
    void bothLayoutsGiveTheSameConversations()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, sharegpt);
        const auto parsed = parseAtEverySize(bytes, sharegpt ? Format::ShareGpt : Format::OpenAi);
        QVERIFY2(std::holds_alternative<PromptDataset>(parsed), qPrintable(errorOf(parsed)));
        const PromptDataset& d = std::get<PromptDataset>(parsed);
        QCOMPARE(show(flatten(d)), show(kExpected));
        QCOMPARE(d.conversationCount(), kExpected.size());
        QCOMPARE(d.sha256, sha256Of(bytes));
    }

    void badArraysAreRefusedWithElementAndByte_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray one = kOne;
        const QByteArray two = "[\n  " + one + ",\n  " + one;
        QTest::newRow("truncated in an element")
            << QByteArray(two + ",\n  {\"conversations\": [{\"from\": \"hu")
            << QStringLiteral("f: element 3 (byte %1): the file ends inside this element (truncated?)")
                   .arg(two.size() + 4);
        QTest::newRow("truncated in an escape")
            << QByteArray("[" + one.left(one.size() - 6) + "\\")
            << QStringLiteral("f: element 1 (byte 1): the file ends inside this element");
        QTest::newRow("truncated after an element")
            << two << QStringLiteral("f: the file ends before the array's closing ']' (after element 2; truncated?)");
        QTest::newRow("truncated after a comma") << QByteArray(
            two + ",") << QStringLiteral("f: the file ends before the array's closing ']' (after element 2");
        QTest::newRow("trailing garbage") << QByteArray(two + "\n]\n  x")
                                          << QStringLiteral("f: byte %1: unexpected data "
                                                            "after the array's closing ']'")
                                                 .arg(two.size() + 5);
        QTest::newRow("a second array") << QByteArray("[" + one + "][" + one + "]")
                                        << QStringLiteral("f: byte %1: unexpected data").arg(one.size() + 2);
        QTest::newRow("non-object element")
            << QByteArray(two + ", \"text\"]")
            << QStringLiteral("f: element 3 (byte %1): expected a JSON object").arg(two.size() + 2);
        QTest::newRow("array element") << QByteArray("[[" + one + "]]")
                                       << QStringLiteral("f: element 1 (byte 1): expected a JSON object");
        QTest::newRow("missing conversations")
            << QByteArray(two + ",\n  {\"id\": \"x\"}\n]")
            << QStringLiteral("f: element 3 (byte %1): \"conversations\" must be a non-empty list").arg(two.size() + 4);
        QTest::newRow("not JSON") << QByteArray("[" + one + ",{\"conversations\" 5}]")
                                  << QStringLiteral("f: element 2 (byte %1): not valid JSON").arg(one.size() + 2);
        QTest::newRow("too deep") << QByteArray("[{\"x\": " + QByteArray(100, '[') + QByteArray(100, ']') + "}]")
                                  << QStringLiteral("f: element 1 (byte 1): nested deeper than 64 levels");
        QTest::newRow("trailing comma") << QByteArray("[" + one
            + ",]") << QStringLiteral("f: element 2 (byte %1): expected an element after ','").arg(one.size() + 2);
        QTest::newRow("missing comma") << QByteArray("[" + one + " " + one
            + "]") << QStringLiteral("f: byte %1: expected ',' or ']' after element 1").arg(one.size() + 2);
        QTest::newRow("empty array") << QByteArray(" [ \n ] \n") << QStringLiteral("f: no conversations in the file");
        QTest::newRow("unclosed empty array") << QByteArray("[") << QStringLiteral("f: the file ends before");
    }
    // What the published ShareGPT file holds besides human/gpt pairs: other
    // speakers, "user" for the human, empty and human-less conversations.
    void publishedQuirksAreReadAndSkipsCounted()
    {
        const QByteArray bytes
            = "[{\"id\": \"a\", \"conversations\": []},\n"
              " {\"id\": \"b\", \"conversations\": [{\"from\": \"gpt\", \"value\": \"hi\"}]},\n"
              " {\"id\": \"c\", \"conversations\": [{\"from\": \"user\", \"value\": \"q1\"},\n"
              "   {\"from\": \"bing\", \"value\": \"r1\"}, {\"from\": \"human\", \"value\": \"q2\"},\n"
              "   {\"from\": \"chatgpt\", \"value\": \"r2\"}]}]";
        const auto parsed = parseAtEverySize(bytes, Format::ShareGpt);
        QVERIFY2(std::holds_alternative<PromptDataset>(parsed), qPrintable(errorOf(parsed)));
        const PromptDataset& d = std::get<PromptDataset>(parsed);
        QCOMPARE(d.conversationCount(), std::size_t(1));
        QCOMPARE(d.skippedConversations, 2);
        const Conversation c = d.conversation(0);
        QCOMPARE(c.userTurns.size(), std::size_t(2));
        QCOMPARE(c.userTurns[0], QByteArray("q1"));
        QCOMPARE(c.userTurns[1], QByteArray("q2"));
    }

    void badArraysAreRefusedWithElementAndByte()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const auto parsed = parseAtEverySize(bytes, Format::ShareGpt);
        QVERIFY(std::holds_alternative<QString>(parsed));
        QVERIFY2(std::get<QString>(parsed).startsWith(expected), qPrintable(errorOf(parsed)));
    }

    // JSON Lines read in pieces say what the whole file says, line numbers included.
    void linesKeepTheirNumbersInPieces_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray one = QByteArray(kOne) + "\n";
        QTest::newRow("not json") << QByteArray(one + "\r\n" + one + "{\"conv")
                                  << QStringLiteral("f: line 4: not valid JSON");
        QTest::newRow("blank lines first") << QByteArray("\n \n\t\n" + one + "{}\n")
                                           << QStringLiteral("f: line 5: \"conversations\" must be a non-empty list");
        QTest::newRow("a false byte order mark")
            << QByteArray("\xEF\xBB" + one) << QStringLiteral("f: line 1: not valid JSON");
        QTest::newRow("whitespace only") << QByteArray(" \n\r\n") << QStringLiteral("f: no conversations in the file");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("f: no conversations in the file");
    }
    void linesKeepTheirNumbersInPieces()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const auto parsed = parseAtEverySize(bytes, Format::ShareGpt);
        QVERIFY(std::holds_alternative<QString>(parsed));
        QCOMPARE(std::get<QString>(parsed), expected);
    }

    // Through the file reader's own 1 MiB pieces: a few MiB of conversations
    // whose elements straddle the piece boundaries, as an array and as lines.
    void aFileIsReadInPiecesAndHashedWhole()
    {
        using json = nlohmann::json;
        QByteArray array = "[\n", lines;
        std::vector<Expected> expected;
        for (int i = 0; i < 300; ++i) {
            Expected e;
            json turns = json::array();
            if (i % 7 == 0) {
                e.system.push_back("system " + QByteArray::number(i));
                turns.push_back({ { "from", "system" }, { "value", e.system.back().toStdString() } });
            }
            for (int t = 0; t < 1 + i % 3; ++t) {
                // About 4 KiB a turn, with quotes, backslashes, newlines and U+00E9.
                e.user.push_back(QByteArray("q\"\\\n\xC3\xA9 ").repeated(600 + i) + QByteArray::number(t));
                turns.push_back({ { "from", "human" }, { "value", e.user.back().toStdString() } });
                turns.push_back({ { "from", "gpt" }, { "value", std::string(5000, 'r') } });
            }
            const json record = { { "id", std::to_string(i) }, { "conversations", turns } };
            array += QByteArray::fromStdString(record.dump(2)) + (i < 299 ? ",\n" : "\n]\n");
            lines += QByteArray::fromStdString(record.dump(-1, ' ', true)) + '\n';
            expected.push_back(std::move(e));
        }
        QVERIFY(array.size() > 3 * (1 << 20));
        QTemporaryDir dir;
        for (const QByteArray& bytes : { array, lines }) {
            const QString path = dir.filePath(QStringLiteral("prompts.json"));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QCOMPARE(file.write(bytes), bytes.size());
            file.close();
            const auto loaded = loadPromptDataset(path, Format::ShareGpt);
            QVERIFY2(std::holds_alternative<PromptDataset>(loaded), qPrintable(errorOf(loaded)));
            const PromptDataset& d = std::get<PromptDataset>(loaded);
            QCOMPARE(d.conversationCount(), expected.size());
            QVERIFY(flatten(d) == expected);
            QCOMPARE(d.sha256, sha256Of(bytes));
        }
    }

    // The kept texts lie in fixed blocks: texts that cross a block's end, fill
    // one exactly, or are empty come back byte for byte.
    void textsComeBackAcrossBlocks()
    {
        const qsizetype block = PromptDataset::kBlockBytes;
        const auto text = [](qsizetype size, char seed) {
            QByteArray pattern(251, Qt::Uninitialized); // a prime length: never in step with a block
            for (int i = 0; i < 251; ++i)
                pattern[i] = char(seed + i);
            return pattern.repeated(size / 251 + 1).left(size);
        };
        const std::vector<Expected> expected {
            { { text(block - 3, 1) }, { text(7, 2), text(0, 3) } }, // the user turn crosses the first block's end
            { {}, { text(block - 4, 4) } }, // ends exactly at the second block's end
            { { text(0, 5) }, { text(2 * block + 5, 6), text(1, 7) } }, // spans three blocks
        };
        PromptDataset d;
        for (const Expected& e : expected) {
            for (const QByteArray& t : e.system)
                d.addText(t);
            for (const QByteArray& t : e.user)
                d.addText(t);
            d.closeConversation(int(e.system.size()), int(e.user.size()));
        }
        d.squeeze();
        QCOMPARE(d.conversationCount(), expected.size());
        QCOMPARE(d.textBytes(), qint64(4 * block + 6));
        QCOMPARE(d.userTurnCount(2), 2);
        QVERIFY(flatten(d) == expected);
    }
};

QTEST_GUILESS_MAIN(TestPromptDataset)
#include "tst_promptdataset.moc"
