#include "promptform.h"

#include "experimentdocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

const QString kPrompts = QStringLiteral("prompts");
constexpr int kMaxWords = 1'000'000;

// A spec may hold anything (it loads even when invalid, so its problems can be shown): read only what
// has the expected type, and a number only within what the spin boxes hold.
int wholeOr(const nlohmann::json& j, const char* key, int fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        return fallback;
    return int(std::lround(std::clamp(it->get<double>(), 0.0, double(kMaxWords))));
}

std::string textOr(const nlohmann::json& j, const char* key, const std::string& fallback)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

} // namespace

PromptForm::PromptForm(ExperimentDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_form(new QFormLayout(this))
    , m_source(new QComboBox(this))
    , m_dist(new QComboBox(this))
    , m_std(new QDoubleSpinBox(this))
    , m_prefix(new QCheckBox(tr("Every prompt starts with a shared prefix"), this))
    , m_fileRow(new QWidget(this))
    , m_path(new QLineEdit(this))
    , m_format(new QComboBox(this))
    , m_seed(new QLineEdit(this))
{
    m_form->setContentsMargins(0, 0, 0, 0);
    m_source->addItem(tr("Synthetic words"), QStringLiteral("synthetic"));
    m_source->addItem(tr("Prompt file"), QStringLiteral("file"));
    m_source->setToolTip(tr("Synthetic prompts are distinct per request (no two share a cached prefix); a file "
                            "sends its conversations in file order"));
    m_source->setObjectName(QStringLiteral("promptSource"));
    m_form->addRow(tr("Prompts from"), m_source);

    m_dist->addItem(tr("fixed"), QStringLiteral("fixed"));
    m_dist->addItem(tr("uniform"), QStringLiteral("uniform"));
    m_dist->addItem(tr("normal"), QStringLiteral("normal"));
    m_dist->addItem(tr("lognormal"), QStringLiteral("lognormal"));
    m_dist->setToolTip(tr("How prompt lengths are drawn per request (seeded: the same for every configuration)"));
    m_dist->setObjectName(QStringLiteral("promptDist"));
    m_form->addRow(tr("Prompt len&gth"), m_dist);
    m_words = spin("promptWords", 1, kMaxWords,
        tr("Prompt words (one token each on knobscope-sim); for normal and "
           "lognormal the mean length"));
    m_form->addRow(tr("Words"), m_words);
    m_std->setObjectName(QStringLiteral("promptStd"));
    m_std->setRange(0, kMaxWords);
    m_std->setDecimals(2);
    m_std->setToolTip(tr("Standard deviation of the lengths themselves"));
    m_form->addRow(tr("Std. dev."), m_std);
    m_min = spin("promptMin", 0, kMaxWords, tr("Shortest prompt; every draw is clamped to it"), tr("none"));
    m_form->addRow(tr("Min words"), m_min);
    m_max = spin("promptMax", 0, kMaxWords, tr("Longest prompt; every draw is clamped to it"), tr("none"));
    m_form->addRow(tr("Max words"), m_max);

    m_prefix->setObjectName(QStringLiteral("promptPrefix"));
    m_prefix->setToolTip(tr("The system-prompt pattern that prefix caching serves: each prompt starts with one of N "
                            "fixed texts (the system message on the chat API)"));
    m_form->addRow(QString(), m_prefix);
    m_prefixes = spin("promptPrefixes", 1, 100000, tr("How many distinct prefixes (chosen per request by the seed)"));
    m_form->addRow(tr("Prefixes"), m_prefixes);
    m_prefixWords = spin("promptPrefixWords", 1, kMaxWords, tr("Words in each prefix"));
    m_form->addRow(tr("Prefix words"), m_prefixWords);

    auto* fileLayout = new QHBoxLayout(m_fileRow);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    m_path->setObjectName(QStringLiteral("promptPath"));
    m_path->setPlaceholderText(tr("conversations.jsonl"));
    m_path->setToolTip(tr("OpenAI messages or ShareGPT conversations, as JSON Lines or one JSON array; read "
                          "relative to the working directory"));
    fileLayout->addWidget(m_path, 1);
    auto* browse = new QPushButton(tr("Browse…"), m_fileRow);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Prompt file"), m_path->text(), tr("Conversations (*.jsonl *.json);;All files (*)"));
        if (!path.isEmpty()) {
            m_path->setText(path);
            write();
        }
    });
    fileLayout->addWidget(browse);
    m_form->addRow(tr("File"), m_fileRow);
    m_format->addItem(QStringLiteral("openai"));
    m_format->addItem(QStringLiteral("sharegpt"));
    m_format->setObjectName(QStringLiteral("promptFormat"));
    m_format->setToolTip(tr("openai: {\"messages\": [{\"role\", \"content\"}]}; sharegpt: {\"conversations\": "
                            "[{\"from\", \"value\"}]}"));
    m_form->addRow(tr("Format"), m_format);

    m_turns = spin("promptTurns", 1, 1000,
        tr("Turns per session: each turn carries the earlier turns and the "
           "server's actual replies (concurrency arms only); 1: single requests"));
    m_form->addRow(tr("Turns"), m_turns);
    m_seed->setObjectName(QStringLiteral("promptSeed"));
    m_seed->setPlaceholderText(tr("the experiment's"));
    m_seed->setToolTip(tr("Seed of every prompt, length and prefix choice (a whole number >= 0)"));
    m_form->addRow(tr("Seed"), m_seed);

    m_paths = { { m_source, kPrompts + QStringLiteral(".source") },
        { m_dist, kPrompts + QStringLiteral(".input_tokens") }, { m_words, kPrompts + QStringLiteral(".input_tokens") },
        { m_std, kPrompts + QStringLiteral(".input_tokens.std") },
        { m_min, kPrompts + QStringLiteral(".input_tokens.min") },
        { m_max, kPrompts + QStringLiteral(".input_tokens.max") },
        { m_prefixes, kPrompts + QStringLiteral(".shared_prefix") },
        { m_prefixWords, kPrompts + QStringLiteral(".shared_prefix") }, { m_path, kPrompts + QStringLiteral(".path") },
        { m_format, kPrompts + QStringLiteral(".format") }, { m_turns, kPrompts + QStringLiteral(".multi_turn") },
        { m_seed, kPrompts + QStringLiteral(".seed") } };
    for (auto it = m_paths.cbegin(); it != m_paths.cend(); ++it)
        it.key()->setProperty("plainToolTip", it.key()->toolTip());

    for (QComboBox* combo : { m_source, m_dist, m_format })
        connect(combo, &QComboBox::currentIndexChanged, this, &PromptForm::write);
    for (QSpinBox* box : { m_words, m_min, m_max, m_prefixes, m_prefixWords, m_turns })
        connect(box, &QSpinBox::valueChanged, this, &PromptForm::write);
    connect(m_std, &QDoubleSpinBox::valueChanged, this, &PromptForm::write);
    connect(m_prefix, &QCheckBox::toggled, this, &PromptForm::write);
    connect(m_path, &QLineEdit::textEdited, this, &PromptForm::write);
    connect(m_seed, &QLineEdit::textEdited, this, &PromptForm::write);
    refresh();
}

QSpinBox* PromptForm::spin(const char* name, int minimum, int maximum, const QString& toolTip, const QString& unset)
{
    auto* box = new QSpinBox(this);
    box->setObjectName(QString::fromLatin1(name));
    box->setRange(minimum, maximum);
    box->setToolTip(toolTip);
    box->setAccelerated(true);
    if (!unset.isEmpty())
        box->setSpecialValueText(unset); // the minimum (0) means "not set"
    return box;
}

void PromptForm::refresh()
{
    m_refreshing = true;
    nlohmann::json prompts = m_document->value(kPrompts);
    if (!prompts.is_object())
        prompts = nlohmann::json::object();
    const bool file = textOr(prompts, "source", "synthetic") == "file";
    m_source->setCurrentIndex(file ? 1 : 0);

    const nlohmann::json length = prompts.contains("input_tokens") ? prompts["input_tokens"] : nlohmann::json(128);
    m_dist->setCurrentIndex(0);
    m_words->setValue(128);
    m_std->setValue(0);
    m_min->setValue(0);
    m_max->setValue(0);
    if (length.is_number()) {
        m_words->setValue(wholeOr(prompts, "input_tokens", 128));
    } else if (length.is_object()) {
        const QString dist = QString::fromStdString(textOr(length, "dist", "fixed"));
        m_dist->setCurrentIndex(std::max(0, m_dist->findData(dist)));
        m_words->setValue(wholeOr(length, dist == QLatin1String("fixed") ? "value" : "mean", 128));
        if (const auto s = length.find("std"); s != length.end() && s->is_number())
            m_std->setValue(std::clamp(s->get<double>(), 0.0, double(kMaxWords)));
        m_min->setValue(wholeOr(length, "min", 0));
        m_max->setValue(wholeOr(length, "max", 0));
    }
    const nlohmann::json prefix = prompts.contains("shared_prefix") ? prompts["shared_prefix"] : nlohmann::json();
    m_prefix->setChecked(prefix.is_object());
    m_prefixes->setValue(prefix.is_object() ? wholeOr(prefix, "prefixes", 1) : 1);
    m_prefixWords->setValue(prefix.is_object() ? wholeOr(prefix, "prefix_tokens", 1024) : 1024);
    m_path->setText(QString::fromStdString(textOr(prompts, "path", {})));
    m_format->setCurrentText(QString::fromStdString(textOr(prompts, "format", "openai")));
    const nlohmann::json turns = prompts.contains("multi_turn") ? prompts["multi_turn"] : nlohmann::json();
    m_turns->setValue(turns.is_object() ? wholeOr(turns, "turns", 1) : 1);
    const auto seed = prompts.find("seed");
    m_seed->setText(
        seed != prompts.end() && seed->is_number_integer() ? QString::number(seed->get<qint64>()) : QString());
    m_unshown = prompts;
    for (const char* key : { "source", "input_tokens", "shared_prefix", "path", "format", "multi_turn", "seed" })
        m_unshown.erase(key);
    updateRows();
    m_refreshing = false;
}

void PromptForm::updateRows()
{
    const bool file = m_source->currentData().toString() == QLatin1String("file");
    const QString dist = m_dist->currentData().toString();
    const bool spread = dist == QLatin1String("normal") || dist == QLatin1String("lognormal");
    m_form->setRowVisible(m_dist, !file);
    m_form->setRowVisible(m_words, !file);
    m_form->setRowVisible(m_std, !file && spread);
    m_form->setRowVisible(m_min, !file && dist != QLatin1String("fixed"));
    m_form->setRowVisible(m_max, !file && dist != QLatin1String("fixed"));
    m_form->setRowVisible(m_prefix, !file);
    m_form->setRowVisible(m_prefixes, !file && m_prefix->isChecked());
    m_form->setRowVisible(m_prefixWords, !file && m_prefix->isChecked());
    m_form->setRowVisible(m_fileRow, file);
    m_form->setRowVisible(m_format, file);
    // A uniform length needs both bounds (at least 1); the spread ones may leave them unset (0, "none").
    const bool uniform = dist == QLatin1String("uniform");
    if (uniform && !m_refreshing && m_max->value() == 0)
        m_max->setValue(std::max(m_words->value(), m_min->value())); // a bound to start from, not 0
    for (QSpinBox* bound : { m_min, m_max }) {
        bound->setMinimum(uniform ? 1 : 0);
        bound->setSpecialValueText(uniform ? QString() : tr("none"));
    }
    // Only a spread has a meaningful mean; the label says which the field is.
    if (auto* label = qobject_cast<QWidget*>(m_form->labelForField(m_words)))
        label->setProperty("text", spread ? tr("Mean words") : tr("Words"));
}

void PromptForm::write()
{
    updateRows();
    if (m_refreshing)
        return;
    nlohmann::json prompts = m_unshown;
    const bool file = m_source->currentData().toString() == QLatin1String("file");
    prompts["source"] = file ? "file" : "synthetic";
    if (file) {
        prompts["path"] = m_path->text().trimmed().toStdString();
        prompts["format"] = m_format->currentText().toStdString();
    } else {
        const std::string dist = m_dist->currentData().toString().toStdString();
        if (dist == "fixed") {
            prompts["input_tokens"] = m_words->value();
        } else if (dist == "uniform") {
            prompts["input_tokens"] = { { "dist", dist }, { "min", m_min->value() }, { "max", m_max->value() } };
        } else {
            nlohmann::json length = { { "dist", dist }, { "mean", m_words->value() }, { "std", m_std->value() } };
            if (m_min->value() > 0)
                length["min"] = m_min->value();
            if (m_max->value() > 0)
                length["max"] = m_max->value();
            prompts["input_tokens"] = length;
        }
        if (m_prefix->isChecked())
            prompts["shared_prefix"]
                = { { "prefixes", m_prefixes->value() }, { "prefix_tokens", m_prefixWords->value() } };
    }
    if (m_turns->value() > 1)
        prompts["multi_turn"] = { { "turns", m_turns->value() } };
    bool isNumber = false;
    const qint64 seed = m_seed->text().trimmed().toLongLong(&isNumber);
    if (isNumber)
        prompts["seed"] = seed;
    else if (!m_seed->text().trimmed().isEmpty())
        prompts["seed"] = m_seed->text().trimmed().toStdString(); // the validator says what is wrong with it
    m_document->setValue(kPrompts, prompts);
}

void PromptForm::showProblems(const QHash<QString, QString>& problems)
{
    for (auto w = m_paths.cbegin(); w != m_paths.cend(); ++w) {
        QString message;
        for (auto it = problems.cbegin(); it != problems.cend(); ++it)
            if (it.key() == w.value() || it.key().startsWith(w.value() + QLatin1Char('.')))
                message += (message.isEmpty() ? QString() : QStringLiteral("\n")) + it.value();
        w.key()->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border: 2px solid #c0392b;"));
        w.key()->setToolTip(message.isEmpty() ? w.key()->property("plainToolTip").toString() : message);
    }
}

} // namespace ks
