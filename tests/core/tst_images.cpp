// Images in chat requests: the `images` spec, the request body's content parts,
// and the simulator's reading of them (size from the header, tokens by its rule).
#include "client/requestfactory.h"
#include "imageinput.h"
#include "openairequest.h"
#include "workload/imagepool.h"
#include "workload/promptspec.h"

#include <QBuffer>
#include <QImage>
#include <QImageWriter>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace ks;
using json = nlohmann::json;

namespace {
std::optional<PromptSpec> read(const json& prompts, QStringList* messages = nullptr)
{
    std::vector<std::pair<QString, QString>> errors;
    auto spec = parsePromptSpec(prompts, QStringLiteral("prompts"), errors);
    for (const auto& [at, message] : errors)
        if (messages)
            *messages << at + QStringLiteral(": ") + message;
    return spec;
}

LoadSpec chatSpec(const json& images)
{
    LoadSpec s;
    s.api = ApiKind::Chat;
    s.model = QStringLiteral("m");
    s.requests = 4;
    s.inputTokens = 5;
    s.prompts = *read({ { "input_tokens", 5 }, { "images", images } });
    return s;
}
} // namespace

class TestImages : public QObject {
    Q_OBJECT
private slots:
    void validSpecs()
    {
        const auto fixed = read({ { "images", { { "count", 2 }, { "width", 64 }, { "height", 32 } } } });
        QVERIFY(fixed && fixed->images);
        QCOMPARE(fixed->images->maxCount(), 2);
        QCOMPARE(fixed->images->width, 64);
        QCOMPARE(fixed->images->height, 32);
        const auto dist = read({ { "images",
            { { "count", { { "dist", "uniform" }, { "min", 1 }, { "max", 3 } } }, { "source", "synthetic" },
                { "width", 8 }, { "height", 8 }, { "format", "png" }, { "distinct", 2 } } } });
        QVERIFY(dist && dist->images);
        QCOMPARE(dist->images->maxCount(), 3);
        QCOMPARE(dist->images->distinct, 2);

        QTemporaryDir dir;
        for (const char* name : { "b.png", "a.jpg", "notes.txt" }) {
            QFile f(dir.filePath(QLatin1String(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        const auto folder
            = read({ { "images", { { "count", 1 }, { "source", "folder" }, { "path", dir.path().toStdString() } } } });
        QVERIFY(folder && folder->images);
        QCOMPARE(folder->images->files.size(), 2); // the text file is not an image
        QVERIFY(folder->images->files.front().endsWith(QLatin1String("a.jpg")));
    }

    void invalidSpecs_data()
    {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no count") << QByteArray(R"({"width": 8, "height": 8})") << "prompts.images.count: required";
        QTest::newRow("zero count") << QByteArray(R"({"count": 0, "width": 8, "height": 8})") << "prompts.images.count";
        QTest::newRow("too many") << QByteArray(R"({"count": 65, "width": 8, "height": 8})") << "at most 64";
        QTest::newRow("no size") << QByteArray(R"({"count": 1, "width": 8})") << "need \"width\" and \"height\"";
        QTest::newRow("jpeg synthetic") << QByteArray(R"({"count": 1, "width": 8, "height": 8, "format": "jpeg"})")
                                        << "prompts.images.format";
        QTest::newRow("unknown key") << QByteArray(R"({"count": 1, "width": 8, "height": 8, "path": "x"})")
                                     << "prompts.images.path: unknown field for synthetic images";
        QTest::newRow("bad source") << QByteArray(R"({"count": 1, "source": "camera"})") << "prompts.images.source";
        QTest::newRow("missing folder") << QByteArray(R"({"count": 1, "source": "folder", "path": "/no/such/dir"})")
                                        << "no such folder";
        QTest::newRow("huge pool") << QByteArray(R"({"count": 1, "width": 8192, "height": 8192, "distinct": 8})")
                                   << "prompts.images.distinct";
    }
    void invalidSpecs()
    {
        QFETCH(QByteArray, images);
        QFETCH(QString, expected);
        QStringList messages;
        QVERIFY(!read({ { "images", json::parse(images.toStdString()) } }, &messages));
        QVERIFY2(messages.join(QLatin1Char('\n')).contains(expected), qPrintable(messages.join(QLatin1Char('\n'))));
    }

    void completionsRefuseImages()
    {
        LoadSpec s = chatSpec({ { "count", 1 }, { "width", 8 }, { "height", 8 } });
        QVERIFY(s.validate().isEmpty());
        s.api = ApiKind::Completions;
        QVERIFY(s.validate().contains(QLatin1String("chat requests only")));
    }

    // The body is OpenAI's content-part shape, and each data URL decodes (with
    // QImage, not the encoder's own code) to a W×H image.
    void bodyCarriesDecodableImages()
    {
        const LoadSpec s = chatSpec({ { "count", 2 }, { "width", 40 }, { "height", 24 }, { "distinct", 3 } });
        const RequestFactory factory(s, {});
        QVERIFY(factory.workload());
        const PromptTurn turn = factory.workload()->turn(1, 0, {});
        QCOMPARE(turn.images, 2);
        QCOMPARE(turn.inTokens, 0); // the server's usage counts image tokens
        const json body = json::parse(factory.body(turn).toStdString());
        const json& content = body["messages"][0]["content"];
        QVERIFY(content.is_array());
        QCOMPARE(content.size(), std::size_t(3));
        QVERIFY(content[0]["type"] == "text");
        QCOMPARE(QByteArray::fromStdString(content[0]["text"].get<std::string>()).count(' '), 4); // 5 words
        qint64 bytes = 0;
        QSet<QByteArray> distinct;
        for (std::size_t i = 1; i < 3; ++i) {
            QVERIFY(content[i]["type"] == "image_url");
            const std::string url = content[i]["image_url"]["url"].get<std::string>();
            const std::string prefix = "data:image/png;base64,";
            QCOMPARE(url.substr(0, prefix.size()), prefix);
            const QByteArray png = QByteArray::fromBase64(QByteArray::fromStdString(url.substr(prefix.size())));
            const QImage image = QImage::fromData(png, "PNG");
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), QSize(40, 24));
            bytes += png.size();
            distinct.insert(png);
        }
        QCOMPARE(turn.imageBytes, bytes);
        QCOMPARE(distinct.size(), 2); // images 2 and 3 of the pool's 3
    }

    // Folder images: each file's own bytes, base64 in a data URL of its type, in a seeded order over the files.
    void folderImagesAreTheFilesBytes()
    {
        QTemporaryDir dir;
        QMap<QByteArray, QByteArray> files; // bytes -> mime
        for (int k = 0; k < 3; ++k) {
            const QByteArray png = ImagePool::syntheticPng(7, k, 10 + k, 6);
            const bool jpeg = k == 2; // the bytes need not match the name: the name gives the type
            QFile f(dir.filePath(
                QStringLiteral("img%1.%2").arg(k).arg(jpeg ? QStringLiteral("jpg") : QStringLiteral("png"))));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(png);
            files.insert(png, jpeg ? "image/jpeg" : "image/png");
        }
        LoadSpec s = chatSpec({ { "count", 3 }, { "source", "folder" }, { "path", dir.path().toStdString() } });
        const RequestFactory factory(s, {});
        const PromptTurn turn = factory.workload()->turn(0, 0, {});
        QCOMPARE(turn.images, 3);
        const json content = json::parse(factory.body(turn).toStdString())["messages"][0]["content"];
        QSet<QByteArray> seen;
        qint64 bytes = 0;
        for (std::size_t i = 1; i < content.size(); ++i) {
            const QByteArray url = QByteArray::fromStdString(content[i]["image_url"]["url"].get<std::string>());
            const qsizetype comma = url.indexOf(',');
            const QByteArray data = QByteArray::fromBase64(url.mid(comma + 1));
            QVERIFY(files.contains(data));
            QCOMPARE(url.left(comma), "data:" + files.value(data) + ";base64");
            seen.insert(data);
            bytes += data.size();
        }
        QCOMPARE(seen.size(), 3); // three images of a message are three different files
        QCOMPARE(turn.imageBytes, bytes);
    }

    void simReadsSizesAndChargesTokens()
    {
        // By hand from Qwen2-VL's smart_resize: 1024 rounds to 37 patches of 28;
        // 28×28 is under min_pixels (3136) and doubles to 2×2 patches; +2 markers.
        QCOMPARE(kssim::imageTokens(1024, 1024), 37 * 37 + 2);
        QCOMPARE(kssim::imageTokens(28, 28), 2 * 2 + 2);
        QCOMPARE(kssim::imageTokens(640, 480), 23 * 17 + 2);
        // Over max_pixels (16384 patches): scaled down to fit.
        QVERIFY(kssim::imageTokens(8000, 8000) <= 16384 + 2);

        const QByteArray png = ImagePool::syntheticPng(1, 0, 300, 200);
        QCOMPARE(kssim::imageDimensions(png), std::optional(std::pair { 300, 200 }));
        QImage image(77, 33, QImage::Format_RGB32);
        image.fill(Qt::darkCyan);
        QByteArray jpeg;
        QBuffer buffer(&jpeg);
        buffer.open(QIODevice::WriteOnly);
        // libqt6gui6 ships the JPEG plugin: without it this check fails rather than skips.
        QVERIFY2(QImageWriter::supportedImageFormats().contains("jpeg"), "Qt has no JPEG writer (libqt6gui6's qjpeg)");
        QVERIFY(image.save(&buffer, "JPEG"));
        QCOMPARE(kssim::imageDimensions(jpeg), std::optional(std::pair { 77, 33 }));
        QVERIFY(!kssim::imageDimensions(png.left(20)));
    }

    void simRefusesUndecodableImages_data()
    {
        QTest::addColumn<QByteArray>("url");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not an image") << QByteArray("data:image/png;base64,aGVsbG8=") << "cannot identify image";
        QTest::newRow("bad base64") << QByteArray("data:image/png;base64,!!!") << "not valid base64";
        QTest::newRow("http url") << QByteArray("http://example.com/cat.png") << "data:image";
    }
    void simRefusesUndecodableImages()
    {
        QFETCH(QByteArray, url);
        QFETCH(QString, expected);
        const json body = { { "model", "m" }, { "max_tokens", 4 },
            { "messages",
                { { { "role", "user" },
                    { "content",
                        { { { "type", "text" }, { "text", "hi" } },
                            { { "type", "image_url" }, { "image_url", { { "url", url.toStdString() } } } } } } } } } };
        const auto parsed = kssim::parseCompletionRequest(
            QByteArray::fromStdString(body.dump()), kssim::Endpoint::Chat, QStringLiteral("m"), 100000);
        const auto* error = std::get_if<kssim::ApiError>(&parsed);
        QVERIFY(error);
        QCOMPARE(error->status, 400);
        QVERIFY2(error->message.contains(expected), qPrintable(error->message));
    }
};

QTEST_GUILESS_MAIN(TestImages)
#include "tst_images.moc"
