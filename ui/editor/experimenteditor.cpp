#include "experimenteditor.h"

#include "experimentdocument.h"
#include "promptform.h"
#include "runestimate.h"
#include "searchform.h"
#include "server/modelcatalog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks {

namespace {

const char* const kPathProperty = "specPath";

/// Model cells: an editable combo with the server's models, free text allowed.
class ModelDelegate : public QStyledItemDelegate {
public:
    ModelDelegate(const QStringList* models, QObject* parent)
        : QStyledItemDelegate(parent)
        , m_models(models)
    {
    }
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override
    {
        auto* combo = new QComboBox(parent);
        combo->setEditable(true);
        combo->addItems(*m_models);
        return combo;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        static_cast<QComboBox*>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText());
    }

private:
    const QStringList* m_models;
};

QString commandText(const nlohmann::json& command)
{
    QStringList parts;
    for (const auto& part : command.is_array() ? command : nlohmann::json::array()) {
        QString p = part.is_string() ? QString::fromStdString(part.get<std::string>()) : QString();
        if (p.contains(QLatin1Char(' ')) || p.isEmpty())
            p = QLatin1Char('"') + p + QLatin1Char('"');
        parts << p;
    }
    return parts.join(QLatin1Char(' '));
}

} // namespace

ExperimentEditor::ExperimentEditor(ExperimentDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_catalog(new ModelCatalog(this))
    , m_problems(new QLabel(this))
    , m_modelStatus(new QLabel(this))
{
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);

    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_problems);

    auto* experiment = new QGroupBox(tr("Experiment and target"), content);
    auto* form = new QFormLayout(experiment);
    form->addRow(tr("&Name"), field(QStringLiteral("name"), tr("Experiment name, used for the run file name")));
    form->addRow(tr("&Base URL"),
        field(QStringLiteral("target.base_url"), tr("http:// or https:// address of the OpenAI-compatible server")));
    auto* api = new QComboBox(experiment);
    api->addItems({ QStringLiteral("completions"), QStringLiteral("chat") });
    api->setToolTip(tr("/v1/completions or /v1/chat/completions (chat streams reasoning separately)"));
    api->setProperty(kPathProperty, QStringLiteral("target.api"));
    connect(api, &QComboBox::currentTextChanged, this, [this](const QString& text) {
        if (!m_refreshing)
            m_document->setValue(QStringLiteral("target.api"), text.toStdString());
    });
    m_fields.insert(QStringLiteral("target.api"), api);
    form->addRow(tr("&API"), api);
    form->addRow(tr("API key &variable"),
        field(QStringLiteral("target.api_key_env"),
            tr("Environment variable holding the API key. The key itself is never stored."),
            QStringLiteral("OPENAI_API_KEY")));
    form->addRow(QString(),
        checkBox(QStringLiteral("target.verify_tls"), tr("Verify TLS certificates"), true,
            tr("Leave on unless the server uses a self-signed certificate you trust")));
    layout->addWidget(experiment);

    auto* server = new QGroupBox(tr("Server"), content);
    auto* serverForm = new QFormLayout(server);
    serverForm->addRow(tr("Co&mmand"),
        commandField(
            tr("Started for each configuration; {model} and {knob} placeholders are filled from the configuration. "
               "An argv list, never run through a shell. Empty: knobscope does not start a server.")));
    serverForm->addRow(tr("Ready &path"),
        field(QStringLiteral("server.ready_path"), tr("Polled until it answers 200"), QStringLiteral("/health")));
    serverForm->addRow(tr("Ready timeout s"),
        field(QStringLiteral("server.ready_timeout_s"), tr("Give up on a server that is not ready by then"),
            QStringLiteral("600")));
    serverForm->addRow(QString(),
        checkBox(QStringLiteral("server.restart_between_configs"), tr("Restart between configurations"), true,
            tr("A fresh server process for every configuration")));
    layout->addWidget(server);

    auto* configs = new QGroupBox(tr("Configurations"), content);
    auto* configLayout = new QVBoxLayout(configs);
    auto* modelRow = new QHBoxLayout;
    auto* refresh = new QPushButton(tr("Refresh &models"), configs);
    refresh->setToolTip(tr("Ask the server for its models (GET /v1/models); model cells then offer them"));
    connect(refresh, &QPushButton::clicked, this, &ExperimentEditor::refreshModels);
    modelRow->addWidget(refresh);
    m_modelStatus->setWordWrap(true);
    modelRow->addWidget(m_modelStatus, 1);
    configLayout->addLayout(modelRow);
    configLayout->addWidget(tableWithButtons(m_document->configs(), &m_configView, tr("configuration")));
    m_configView->setItemDelegateForColumn(1, new ModelDelegate(&m_serverModels, m_configView));
    m_estimate = new QLabel(configs);
    m_estimate->setObjectName(QStringLiteral("runEstimate"));
    m_estimate->setWordWrap(true);
    m_estimate->setToolTip(estimateAssumptions());
    configLayout->addWidget(m_estimate);
    layout->addWidget(configs);

    auto* arms = new QGroupBox(tr("Arms (load shapes)"), content);
    auto* armLayout = new QVBoxLayout(arms);
    armLayout->addWidget(tableWithButtons(m_document->arms(), &m_armView, tr("arm")));
    layout->addWidget(arms);

    auto* prompts = new QGroupBox(tr("Prompts (every arm; an arm's own in its prompts cell)"), content);
    auto* promptLayout = new QVBoxLayout(prompts);
    m_promptForm = new PromptForm(m_document, prompts);
    promptLayout->addWidget(m_promptForm);
    layout->addWidget(prompts);

    m_probeBox = new QGroupBox(tr("Drift probes"), content);
    m_probeBox->setCheckable(true);
    m_probeBox->setToolTip(tr("After its arms, each configuration runs the probe set at temperature 0 and hashes "
                              "every output"));
    connect(m_probeBox, &QGroupBox::toggled, this, [this](bool on) {
        if (m_refreshing)
            return;
        m_document->setValue(QStringLiteral("probes"),
            on ? nlohmann::json { { "set", "builtin:quality-50" }, { "repeats", 3 }, { "max_tokens", 64 } }
               : nlohmann::json(nullptr));
        refreshFields();
    });
    auto* probeForm = new QFormLayout(m_probeBox);
    probeForm->addRow(tr("Set"), field(QStringLiteral("probes.set"), tr("builtin:quality-50 or a probe file path")));
    probeForm->addRow(
        tr("Repeats"), field(QStringLiteral("probes.repeats"), tr("Passes before any restart"), QStringLiteral("3")));
    probeForm->addRow(
        tr("Max tokens"), field(QStringLiteral("probes.max_tokens"), tr("Output cap per probe"), QStringLiteral("64")));
    probeForm->addRow(tr("Concurrency"),
        field(QStringLiteral("probes.concurrency"), tr("Probes in flight; raise it to probe under batching"),
            QStringLiteral("1")));
    probeForm->addRow(QString(),
        checkBox(QStringLiteral("probes.across_restart"), tr("Also after a server restart"), false,
            tr("Restart the server and run one more pass")));
    layout->addWidget(m_probeBox);

    m_searchBox = new QGroupBox(tr("Knob search (instead of a grid)"), content);
    m_searchBox->setObjectName(QStringLiteral("searchBox"));
    m_searchBox->setCheckable(true);
    m_searchBox->setToolTip(tr("Let knobscope choose the knob values: each probe starts the server with the one "
                               "configuration's knobs set by the search, and the run recommends the cheapest point "
                               "that is good enough"));
    m_searchForm = new SearchForm(m_document, m_searchBox);
    auto* searchLayout = new QVBoxLayout(m_searchBox);
    searchLayout->addWidget(m_searchForm);
    connect(m_searchBox, &QGroupBox::toggled, this, [this](bool on) {
        if (m_refreshing)
            return;
        m_document->setValue(
            QStringLiteral("search"), on ? SearchForm::startingSearch(m_document->toJson()) : nlohmann::json(nullptr));
        refreshFields();
    });
    layout->addWidget(m_searchBox);

    auto* slo = new QGroupBox(tr("Service-level objectives (goodput)"), content);
    auto* sloForm = new QFormLayout(slo);
    sloForm->addRow(
        tr("TTFT ms"), field(QStringLiteral("slo.ttft_ms"), tr("A request meets the SLO at or below this TTFT")));
    sloForm->addRow(tr("TPOT ms"), field(QStringLiteral("slo.tpot_ms"), tr("… and at or below this TPOT")));
    layout->addWidget(slo);
    layout->addStretch(1);

    auto* scroll = new QScrollArea(this);
    m_scroll = scroll;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    m_validateTimer.setSingleShot(true);
    m_validateTimer.setInterval(300);
    connect(&m_validateTimer, &QTimer::timeout, this, &ExperimentEditor::validateNow);
    connect(m_document, &ExperimentDocument::changed, &m_validateTimer, qOverload<>(&QTimer::start));
    connect(m_document, &ExperimentDocument::loaded, this, &ExperimentEditor::refreshFields);
    connect(m_document, &ExperimentDocument::problemsChanged, this, &ExperimentEditor::showProblems);
    connect(m_catalog, &ModelCatalog::modelsFetched, this, [this](const QStringList& models) {
        m_serverModels = models;
        m_modelStatus->setText(models.isEmpty() ? tr("The server lists no models: type the name")
                                                : tr("Server models: %1").arg(models.join(QStringLiteral(", "))));
    });
    connect(m_catalog, &ModelCatalog::fetchFailed, this, [this](const QString& reason) {
        m_modelStatus->setText(tr("No model list (%1). Type model names; a server started by the experiment is "
                                  "only up during a run.")
                                   .arg(reason));
    });
    refreshFields();
}

QWidget* ExperimentEditor::field(const QString& path, const QString& toolTip, const QString& placeholder)
{
    auto* edit = new QLineEdit(this);
    edit->setToolTip(toolTip);
    edit->setPlaceholderText(placeholder);
    edit->setProperty(kPathProperty, path);
    edit->setProperty("plainToolTip", toolTip);
    const bool textField = path == QLatin1String("name") || path.startsWith(QLatin1String("target."))
        || path == QLatin1String("server.ready_path") || path == QLatin1String("probes.set");
    connect(edit, &QLineEdit::textEdited, this, [this, path, textField](const QString& text) {
        if (text.trimmed().isEmpty())
            m_document->setValue(path, nullptr);
        else
            m_document->setValue(
                path, cellValue(text, textField ? SpecTableModel::Kind::Text : SpecTableModel::Kind::Number));
    });
    m_fields.insert(path, edit);
    return edit;
}

// The server command wraps over a few lines: a real server's command is longer
// than any line edit the editor has room for, and a cut-off command hides knobs.
QWidget* ExperimentEditor::commandField(const QString& toolTip)
{
    const QString path = QStringLiteral("server.command");
    auto* edit = new QPlainTextEdit(this);
    edit->setToolTip(toolTip);
    edit->setProperty(kPathProperty, path);
    edit->setProperty("plainToolTip", toolTip);
    edit->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    edit->setTabChangesFocus(true);
    const int margins = int(edit->document()->documentMargin() * 2) + edit->frameWidth() * 2;
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 3 + margins);
    connect(edit, &QPlainTextEdit::textChanged, this, [this, edit, path] {
        if (m_refreshing)
            return;
        // Line breaks are only wrapping: the command is one argv list.
        const QStringList argv = QProcess::splitCommand(edit->toPlainText().replace(QLatin1Char('\n'), u' '));
        if (argv.isEmpty()) {
            m_document->setValue(QStringLiteral("server"), nullptr);
            return;
        }
        nlohmann::json list = nlohmann::json::array();
        for (const QString& a : argv)
            list.push_back(a.toStdString());
        m_document->setValue(path, list);
    });
    m_fields.insert(path, edit);
    return edit;
}

QWidget* ExperimentEditor::checkBox(const QString& path, const QString& text, bool defaultValue, const QString& toolTip)
{
    auto* box = new QCheckBox(text, this);
    box->setToolTip(toolTip);
    box->setProperty(kPathProperty, path);
    box->setProperty("defaultValue", defaultValue);
    connect(box, &QCheckBox::toggled, this, [this, path](bool on) {
        if (!m_refreshing)
            m_document->setValue(path, on);
    });
    m_fields.insert(path, box);
    return box;
}

QWidget* ExperimentEditor::tableWithButtons(SpecTableModel* model, QTableView** view, const QString& what)
{
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* table = new QTableView(box);
    table->setModel(model);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setMinimumHeight(110);
    table->setEditTriggers(QAbstractItemView::AllEditTriggers);
    *view = table;
    layout->addWidget(table);
    auto* buttons = new QHBoxLayout;
    auto current = [table] { return table->currentIndex().isValid() ? table->currentIndex().row() : -1; };
    auto addButton = [&](const QString& text, const QString& tip, auto action) {
        auto* b = new QToolButton(box);
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, this, action);
        buttons->addWidget(b);
    };
    addButton(tr("Add"), tr("Add a %1").arg(what), [model, table] {
        model->insertRows(model->rowCount(), 1);
        table->setCurrentIndex(model->index(model->rowCount() - 1, 0));
    });
    addButton(
        tr("Duplicate"), tr("Copy the selected %1").arg(what), [model, current] { model->duplicateRow(current()); });
    addButton(tr("Remove"), tr("Remove the selected %1").arg(what), [model, current] {
        if (current() >= 0)
            model->removeRows(current(), 1);
    });
    addButton(QStringLiteral("↑"), tr("Move up (runs earlier)"), [model, table, current] {
        const int row = current();
        if (row > 0 && model->moveRows({}, row, 1, {}, row - 1))
            table->setCurrentIndex(model->index(row - 1, 0));
    });
    addButton(QStringLiteral("↓"), tr("Move down (runs later)"), [model, table, current] {
        const int row = current();
        if (row >= 0 && row + 1 < model->rowCount() && model->moveRows({}, row, 1, {}, row + 2))
            table->setCurrentIndex(model->index(row + 1, 0));
    });
    if (model->arrayName() == QLatin1String("configs")) {
        auto* knob = new QLineEdit(box);
        knob->setMinimumWidth(60);
        knob->setPlaceholderText(tr("new knob name"));
        knob->setToolTip(tr("Adds a knob column; use it in the server command as {name}"));
        connect(knob, &QLineEdit::returnPressed, this, [model, knob] {
            const QString name = knob->text().trimmed();
            if (name.isEmpty())
                return;
            model->addColumn({ QStringLiteral("knobs.") + name, name, SpecTableModel::Kind::Auto,
                ExperimentDocument::knobToolTips().value(name, tr("Server knob {%1}").arg(name)) + gridHint() });
            knob->clear();
        });
        buttons->addWidget(knob, 1);
    } else {
        buttons->addStretch(1);
    }
    layout->addLayout(buttons);
    return box;
}

void ExperimentEditor::refreshFields()
{
    m_refreshing = true;
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it) {
        const nlohmann::json value = m_document->value(it.key());
        if (auto* edit = qobject_cast<QLineEdit*>(it.value()))
            edit->setText(cellText(value));
        else if (auto* command = qobject_cast<QPlainTextEdit*>(it.value()))
            command->setPlainText(commandText(value));
        else if (auto* box = qobject_cast<QCheckBox*>(it.value()))
            box->setChecked(value.is_boolean() ? value.get<bool>() : box->property("defaultValue").toBool());
        else if (auto* combo = qobject_cast<QComboBox*>(it.value()))
            combo->setCurrentText(value.is_string() ? cellText(value) : QStringLiteral("completions"));
    }
    m_probeBox->setChecked(!m_document->value(QStringLiteral("probes")).is_null());
    m_promptForm->refresh();
    const bool search = !m_document->value(QStringLiteral("search")).is_null();
    m_searchBox->setChecked(search);
    m_searchForm->refresh();
    m_searchForm->setVisible(search);
    m_refreshing = false;
    validateNow();
}

void ExperimentEditor::validateNow()
{
    m_validateTimer.stop();
    const auto parsed = m_document->validate();
    if (const auto* spec = std::get_if<ExperimentSpec>(&parsed))
        m_estimate->setText(estimateText(estimateRun(*spec)));
    else
        m_estimate->setText(tr("How many configurations and how long: once the problems above are fixed"));
}

void ExperimentEditor::showProblems(const QHash<QString, QString>& problems)
{
    for (QWidget* widget : std::as_const(m_fields)) {
        const QString path = widget->property(kPathProperty).toString();
        QString message;
        for (auto it = problems.begin(); it != problems.end(); ++it) {
            if (it.key() == path || it.key().startsWith(path + QLatin1Char('[')))
                message += (message.isEmpty() ? QString() : QStringLiteral("\n")) + it.value();
        }
        widget->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border: 2px solid #c0392b;"));
        const QString plain = widget->property("plainToolTip").toString();
        widget->setToolTip(message.isEmpty() ? plain : message);
    }
    m_promptForm->showProblems(problems);
    m_searchForm->showProblems(problems);
    m_problems->setText(
        problemTexts().isEmpty() ? QString() : tr("Fix before running:\n") + problemTexts().join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
}

QStringList ExperimentEditor::problemTexts() const
{
    QStringList out;
    const auto& problems = m_document->problems();
    for (auto it = problems.begin(); it != problems.end(); ++it)
        out << (it.key().isEmpty() ? it.value() : it.key() + QStringLiteral(": ") + it.value());
    out.sort();
    return out;
}

void ExperimentEditor::setRunning(bool running)
{
    // The spec being run is a copy: editing during a run is allowed but cannot change that run.
    m_problems->setToolTip(running ? tr("Edits apply to the next run") : QString());
}

void ExperimentEditor::revealSearch()
{
    m_scroll->verticalScrollBar()->setValue(m_searchBox->y()); // the box from its title down
}

void ExperimentEditor::refreshModels()
{
    const QUrl url(cellText(m_document->value(QStringLiteral("target.base_url"))));
    const nlohmann::json env = m_document->value(QStringLiteral("target.api_key_env"));
    m_modelStatus->setText(tr("Asking %1 …").arg(url.toString()));
    m_catalog->fetch(url, env.is_string() ? cellText(env) : QStringLiteral("OPENAI_API_KEY"),
        m_document->value(QStringLiteral("target.verify_tls")) != nlohmann::json(false));
}

} // namespace ks
