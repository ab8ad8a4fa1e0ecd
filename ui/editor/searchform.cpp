#include "searchform.h"

#include "experimentdocument.h"
#include "models/spectablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace ks {

namespace {

using json = nlohmann::json;

const QString kSearch = QStringLiteral("search");
// The fields of one knob's range, at the top of the one-knob form and per knob in "knobs".
const char* const kRangeKeys[] = { "knob", "min", "max", "scale", "integer", "cheaper" };
constexpr double kLimit = 1e12;
constexpr int kDefaultBudget = 8;
constexpr double kDefaultTolerance = 0.02;
const char* const kDefaultObjective = "goodput_req_per_s";

// A whole number as a JSON integer (knob values are written that way), anything else as a double.
json numberJson(double v)
{
    if (v == std::floor(v) && std::abs(v) < 9e15)
        return json(static_cast<long long>(v));
    return json(v);
}

// Sets `key` only where the field changed: a key the spec had keeps its exact form while its value is
// the same (8 stays 8, not 8.0), and an absent key stays absent while the value is the default.
void put(json& object, const char* key, const json& value, const json& fallback)
{
    const auto it = object.find(key);
    if (it != object.end()) {
        if (*it != value)
            *it = value;
    } else if (value != fallback) {
        object[key] = value;
    }
}

double numberOr(const json& object, const char* key, double fallback)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return it != object.end() && it->is_number() ? std::clamp(it->get<double>(), -kLimit, kLimit) : fallback;
}

QString textOr(const json& object, const char* key, const QString& fallback)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : fallback;
}

QDoubleSpinBox* rangeBox(QWidget* parent, const QString& toolTip)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(-kLimit, kLimit);
    box->setDecimals(4);
    box->setAccelerated(true);
    box->setToolTip(toolTip);
    box->setProperty("plainToolTip", toolTip);
    return box;
}

} // namespace

SearchForm::SearchForm(ExperimentDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_rowsLayout(new QVBoxLayout)
    , m_addKnob(new QPushButton(tr("Add &knob"), this))
    , m_form(new QFormLayout)
    , m_arm(new QComboBox(this))
    , m_objective(new QComboBox(this))
    , m_direction(new QComboBox(this))
    , m_budget(new QSpinBox(this))
    , m_tolerance(new QDoubleSpinBox(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* help = new QLabel(tr("Each probe is the one configuration with these knobs set to values the search "
                               "chooses, on a freshly started server; every knob needs its {name} in the server "
                               "command. One knob: a search along it; two or more: a Bayesian search over all."),
        this);
    help->setWordWrap(true);
    layout->addWidget(help);
    m_rowsLayout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_rowsLayout);
    m_addKnob->setObjectName(QStringLiteral("searchAddKnob"));
    m_addKnob->setToolTip(tr("Search one more knob at once (its range is set in the new row)"));
    connect(m_addKnob, &QPushButton::clicked, this, [this] {
        addRow(QString(), json { { "min", 1 }, { "max", 64 }, { "scale", "log2" }, { "integer", true } });
        m_rows.back().name->setFocus();
        write();
    });
    layout->addWidget(m_addKnob, 0, Qt::AlignLeft);

    m_form->setContentsMargins(0, 0, 0, 0);
    m_arm->setObjectName(QStringLiteral("searchArm"));
    m_arm->setEditable(true);
    m_arm->setToolTip(tr("The arm whose figure each probe is scored by (its other arms still run)"));
    m_form->addRow(tr("Scored &arm"), m_arm);
    m_objective->setObjectName(QStringLiteral("searchObjective"));
    m_objective->setEditable(true);
    m_objective->addItems({ QStringLiteral("goodput_req_per_s"), QStringLiteral("req_per_s"),
        QStringLiteral("out_tok_per_s"), QStringLiteral("capacity"), QStringLiteral("ttft_ms.p50"),
        QStringLiteral("ttft_ms.p99"), QStringLiteral("tpot_ms.p50"), QStringLiteral("tpot_ms.p99"),
        QStringLiteral("itl_ms.p99"), QStringLiteral("e2e_ms.p99") });
    m_objective->setToolTip(tr("What the search scores: a throughput (goodput needs the SLO below), a sweep arm's "
                               "capacity, or a latency percentile (metric.pNN)"));
    m_form->addRow(tr("&Objective"), m_objective);
    m_direction->setObjectName(QStringLiteral("searchDirection"));
    m_direction->addItem(tr("by objective (latency: lower)"));
    m_direction->addItem(tr("lower is better"));
    m_direction->addItem(tr("higher is better"));
    m_direction->setToolTip(tr("Whether the search minimises or maximises the objective"));
    m_form->addRow(tr("Better"), m_direction);
    m_budget->setObjectName(QStringLiteral("searchBudget"));
    m_budget->setRange(2, 1000);
    m_budget->setToolTip(tr("Probes at most, each a server start with every arm; a search over N knobs needs at "
                            "least N + 1"));
    m_form->addRow(tr("&Budget (probes)"), m_budget);
    m_tolerance->setObjectName(QStringLiteral("searchTolerance"));
    m_tolerance->setRange(0, 99.9);
    m_tolerance->setDecimals(1);
    m_tolerance->setSuffix(QStringLiteral(" %"));
    m_tolerance->setToolTip(tr("A probe within this much of the top (or whose interval overlaps the top's) is on "
                               "the plateau; the search recommends the plateau's cheapest probe"));
    m_form->addRow(tr("Plateau &tolerance"), m_tolerance);
    layout->addLayout(m_form);
    for (QWidget* w : std::initializer_list<QWidget*> { m_arm, m_objective, m_budget, m_tolerance })
        w->setProperty("plainToolTip", w->toolTip());

    connect(m_arm, &QComboBox::currentTextChanged, this, &SearchForm::write);
    connect(m_objective, &QComboBox::currentTextChanged, this, &SearchForm::write);
    connect(m_direction, &QComboBox::currentIndexChanged, this, &SearchForm::write);
    connect(m_budget, &QSpinBox::valueChanged, this, &SearchForm::write);
    connect(m_tolerance, &QDoubleSpinBox::valueChanged, this, &SearchForm::write);
    // The arm chooser offers the arms table's names as they are edited.
    SpecTableModel* arms = m_document->arms();
    for (auto signal : { &QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved })
        connect(arms, signal, this, &SearchForm::fillArms);
    connect(arms, &QAbstractItemModel::dataChanged, this, &SearchForm::fillArms);
    connect(arms, &QAbstractItemModel::modelReset, this, &SearchForm::fillArms);
    refresh();
}

json SearchForm::startingSearch(const json& document)
{
    json knobs = json::object();
    const json command = document.contains("server") && document["server"].is_object()
        ? document["server"].value("command", json::array())
        : json::array();
    const json configs = document.value("configs", json::array());
    const json base = configs.is_array() && !configs.empty() && configs[0].is_object()
        ? configs[0].value("knobs", json::object())
        : json::object();
    static const QRegularExpression placeholder(QStringLiteral("\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    for (const json& part : command.is_array() ? command : json::array()) {
        if (!part.is_string())
            continue;
        auto matches = placeholder.globalMatch(QString::fromStdString(part.get<std::string>()));
        while (matches.hasNext()) {
            const std::string name = matches.next().captured(1).toStdString();
            const auto value = base.is_object() ? base.find(name) : base.end();
            if (value == base.end() || !value->is_number() || value->get<double>() <= 0)
                continue; // the model, a file name, or a knob without a number to centre a range on
            const double v = value->get<double>();
            const bool whole = v == std::floor(v);
            knobs[name] = { { "min", numberJson(whole ? std::max(1.0, std::floor(v / 8)) : v / 8) },
                { "max", numberJson(v * 2) }, { "scale", "log2" }, { "integer", whole } };
        }
    }
    if (knobs.empty())
        knobs["max_num_seqs"] = { { "min", 8 }, { "max", 256 }, { "scale", "log2" }, { "integer", true } };
    const json arms = document.value("arms", json::array());
    const std::string arm = arms.is_array() && !arms.empty() && arms[0].is_object()
        ? arms[0].value("name", std::string("stress"))
        : std::string("stress");
    return { { "knobs", knobs }, { "arm", arm }, { "objective", kDefaultObjective },
        { "budget", std::max<int>(kDefaultBudget, int(knobs.size()) * 4 + 2) } };
}

void SearchForm::addRow(const QString& name, const json& range)
{
    KnobRow row;
    row.box = new QWidget(this);
    auto* grid = new QGridLayout(row.box);
    grid->setContentsMargins(0, 4, 0, 4);
    row.name = new QLineEdit(name, row.box);
    row.name->setPlaceholderText(tr("knob, e.g. max_num_seqs"));
    row.name->setToolTip(tr("The knob's name: the server command uses it as {name}"));
    row.name->setProperty("plainToolTip", row.name->toolTip());
    row.min = rangeBox(row.box, tr("The smallest value the search tries"));
    row.max = rangeBox(row.box, tr("The largest value the search tries"));
    row.scale = new QComboBox(row.box);
    row.scale->addItems({ QStringLiteral("linear"), QStringLiteral("log2") });
    row.scale->setToolTip(tr("log2: the search spaces its values by ratios (8, 16, 32, …); min must be above 0"));
    row.scale->setProperty("plainToolTip", row.scale->toolTip());
    row.integer = new QCheckBox(tr("whole"), row.box);
    row.integer->setToolTip(tr("Only whole numbers (a count of sequences, a batch size)"));
    row.cheaper = new QComboBox(row.box);
    row.cheaper->addItems({ QStringLiteral("lower"), QStringLiteral("higher") });
    row.cheaper->setToolTip(tr("Which end of the range costs less (memory, GPUs): of the points that are good "
                               "enough, the search recommends the cheapest"));
    row.cheaper->setProperty("plainToolTip", row.cheaper->toolTip());
    auto* remove = new QToolButton(row.box);
    remove->setText(QStringLiteral("×"));
    remove->setToolTip(tr("Stop searching this knob"));
    remove->setAccessibleName(tr("Remove knob"));

    grid->addWidget(row.name, 0, 0, 1, 3);
    grid->addWidget(row.scale, 0, 3);
    grid->addWidget(remove, 0, 4);
    auto* from = new QLabel(tr("from"), row.box);
    from->setBuddy(row.min);
    grid->addWidget(from, 1, 0);
    grid->addWidget(row.min, 1, 1);
    auto* to = new QLabel(tr("to"), row.box);
    to->setBuddy(row.max);
    grid->addWidget(to, 1, 2);
    grid->addWidget(row.max, 1, 3);
    grid->addWidget(row.integer, 1, 4);
    auto* cheaper = new QLabel(tr("cheaper end"), row.box);
    cheaper->setBuddy(row.cheaper);
    grid->addWidget(cheaper, 2, 0, 1, 2);
    grid->addWidget(row.cheaper, 2, 2, 1, 2);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    row.scale->setCurrentText(textOr(range, "scale", QStringLiteral("linear")));
    const bool whole = range.is_object() && range.value("integer", false) == json(true);
    row.integer->setChecked(whole);
    for (QDoubleSpinBox* box : { row.min, row.max })
        box->setDecimals(whole ? 0 : 4);
    row.min->setValue(numberOr(range, "min", 0));
    row.max->setValue(numberOr(range, "max", 0));
    row.cheaper->setCurrentText(textOr(range, "cheaper", QStringLiteral("lower")));

    connect(row.name, &QLineEdit::textEdited, this, &SearchForm::write);
    for (QDoubleSpinBox* box : { row.min, row.max })
        connect(box, &QDoubleSpinBox::valueChanged, this, &SearchForm::write);
    connect(row.scale, &QComboBox::currentIndexChanged, this, &SearchForm::write);
    connect(row.cheaper, &QComboBox::currentIndexChanged, this, &SearchForm::write);
    connect(row.integer, &QCheckBox::toggled, this, [this, min = row.min, max = row.max](bool on) {
        for (QDoubleSpinBox* box : { min, max })
            box->setDecimals(on ? 0 : 4); // rounds the value: a whole-number knob shows none
        write();
    });
    connect(remove, &QToolButton::clicked, this, [this, box = row.box] {
        removeRow(box);
        write();
    });
    m_rowsLayout->addWidget(row.box);
    m_rows.push_back(row);
    numberRows();
}

void SearchForm::removeRow(QWidget* box)
{
    const auto it = std::find_if(m_rows.begin(), m_rows.end(), [box](const KnobRow& r) { return r.box == box; });
    if (it == m_rows.end())
        return;
    m_rows.erase(it);
    // Its own button is still on the call stack: deleted later, but out of the form now.
    box->hide();
    box->setParent(nullptr);
    box->deleteLater();
    numberRows();
}

void SearchForm::clearRows()
{
    for (const KnobRow& row : m_rows)
        delete row.box;
    m_rows.clear();
}

// Rows are named by their place (searchKnob0, searchMin0, …): for tests and accessibility tools.
void SearchForm::numberRows()
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const KnobRow& row = m_rows[i];
        row.name->setObjectName(QStringLiteral("searchKnob%1").arg(i));
        row.min->setObjectName(QStringLiteral("searchMin%1").arg(i));
        row.max->setObjectName(QStringLiteral("searchMax%1").arg(i));
        row.scale->setObjectName(QStringLiteral("searchScale%1").arg(i));
        row.integer->setObjectName(QStringLiteral("searchInteger%1").arg(i));
        row.cheaper->setObjectName(QStringLiteral("searchCheaper%1").arg(i));
    }
}

void SearchForm::fillArms()
{
    const bool wasRefreshing = m_refreshing;
    m_refreshing = true;
    const QString current = m_arm->currentText();
    m_arm->clear();
    const json arms = m_document->arms()->rows();
    for (const json& arm : arms.is_array() ? arms : json::array())
        if (arm.is_object() && arm.contains("name") && arm["name"].is_string())
            m_arm->addItem(QString::fromStdString(arm["name"].get<std::string>()));
    m_arm->setCurrentText(current);
    m_refreshing = wasRefreshing;
}

void SearchForm::refresh()
{
    m_refreshing = true;
    m_loaded = m_document->value(kSearch);
    const json& s = m_loaded;
    clearRows();
    if (s.is_object() && s.contains("knobs") && s["knobs"].is_object()) {
        for (const auto& item : s["knobs"].items())
            addRow(QString::fromStdString(item.key()), item.value());
    } else if (s.is_object()) {
        addRow(textOr(s, "knob", QString()), s); // the one-knob form: its range sits beside the other fields
    }
    fillArms();
    m_arm->setCurrentText(textOr(s, "arm", QString()));
    m_objective->setCurrentText(textOr(s, "objective", QString::fromLatin1(kDefaultObjective)));
    const auto minimize = s.is_object() ? s.find("minimize") : s.end();
    m_direction->setCurrentIndex(minimize == s.end() || !minimize->is_boolean() ? 0 : (minimize->get<bool>() ? 1 : 2));
    m_budget->setValue(int(numberOr(s, "budget", kDefaultBudget)));
    m_tolerance->setValue(numberOr(s, "tolerance", kDefaultTolerance) * 100);
    m_refreshing = false;
}

json SearchForm::knobsJson() const
{
    const json loadedKnobs = m_loaded.is_object() && m_loaded.contains("knobs") && m_loaded["knobs"].is_object()
        ? m_loaded["knobs"]
        : json::object();
    json knobs = json::object();
    for (const KnobRow& row : m_rows) {
        const std::string name = row.name->text().trimmed().toStdString();
        if (name.empty())
            continue; // the validator's "name at least one knob" covers a search with none
        json range = json::object();
        if (loadedKnobs.contains(name) && loadedKnobs[name].is_object()) {
            range = loadedKnobs[name];
        } else if (m_loaded.is_object() && m_loaded.value("knob", json()) == json(name)) {
            for (const char* key : kRangeKeys) // the one-knob form's range, moved into "knobs"
                if (m_loaded.contains(key) && std::string_view(key) != "knob")
                    range[key] = m_loaded[key];
        }
        put(range, "min", numberJson(row.min->value()), json());
        put(range, "max", numberJson(row.max->value()), json());
        put(range, "scale", row.scale->currentText().toStdString(), "linear");
        put(range, "integer", row.integer->isChecked(), false);
        put(range, "cheaper", row.cheaper->currentText().toStdString(), "lower");
        knobs[name] = range;
    }
    return knobs;
}

void SearchForm::write()
{
    if (m_refreshing)
        return;
    json s = m_loaded.is_object() ? m_loaded : json::object();
    const bool oneKnobForm = s.contains("knob") && !s.contains("knobs") && m_rows.size() == 1;
    if (oneKnobForm) {
        const KnobRow& row = m_rows.front();
        put(s, "knob", row.name->text().trimmed().toStdString(), json());
        put(s, "min", numberJson(row.min->value()), json());
        put(s, "max", numberJson(row.max->value()), json());
        put(s, "scale", row.scale->currentText().toStdString(), "linear");
        put(s, "integer", row.integer->isChecked(), false);
        put(s, "cheaper", row.cheaper->currentText().toStdString(), "lower");
    } else {
        for (const char* key : kRangeKeys)
            s.erase(key);
        s["knobs"] = knobsJson();
    }
    put(s, "arm", m_arm->currentText().trimmed().toStdString(), json());
    put(s, "objective", m_objective->currentText().trimmed().toStdString(), kDefaultObjective);
    if (m_direction->currentIndex() == 0)
        s.erase("minimize");
    else
        put(s, "minimize", m_direction->currentIndex() == 1, json());
    put(s, "budget", m_budget->value(), kDefaultBudget);
    put(s, "tolerance", m_tolerance->value() / 100, kDefaultTolerance);
    m_document->setValue(kSearch, s);
}

QString SearchForm::rowPath(const KnobRow& row) const
{
    const json written = m_document->value(kSearch); // the form as written now: a second knob moves it
    const bool oneKnobForm = written.is_object() && written.contains("knob") && !written.contains("knobs");
    return oneKnobForm ? kSearch : kSearch + QStringLiteral(".knobs.") + row.name->text().trimmed();
}

void SearchForm::showProblems(const QHash<QString, QString>& problems)
{
    const auto mark = [&problems](QWidget* widget, const QString& path, bool exact) {
        QString message;
        for (auto it = problems.cbegin(); it != problems.cend(); ++it)
            if (it.key() == path || (!exact && it.key().startsWith(path + QLatin1Char('.'))))
                message += (message.isEmpty() ? QString() : QStringLiteral("\n")) + it.value();
        widget->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border: 2px solid #c0392b;"));
        widget->setToolTip(message.isEmpty() ? widget->property("plainToolTip").toString() : message);
    };
    for (const KnobRow& row : m_rows) {
        const QString path = rowPath(row);
        const bool oneKnobForm = path == kSearch;
        // A knob's own problems (no placeholder, min not below max) are reported at its path.
        mark(row.name, oneKnobForm ? kSearch + QStringLiteral(".knob") : path, true);
        mark(row.min, path + QStringLiteral(".min"), true);
        mark(row.max, path + QStringLiteral(".max"), true);
        mark(row.scale, path + QStringLiteral(".scale"), true);
        mark(row.cheaper, path + QStringLiteral(".cheaper"), true);
        if (!oneKnobForm && problems.contains(path)) // "min (8) must be below max (4)" at the knob itself
            for (QWidget* w : { static_cast<QWidget*>(row.min), static_cast<QWidget*>(row.max) })
                if (problems.value(path).contains(QLatin1String("below max")))
                    w->setStyleSheet(QStringLiteral("border: 2px solid #c0392b;"));
    }
    mark(m_arm, kSearch + QStringLiteral(".arm"), true);
    mark(m_objective, kSearch + QStringLiteral(".objective"), true);
    mark(m_budget, kSearch + QStringLiteral(".budget"), true);
    mark(m_tolerance, kSearch + QStringLiteral(".tolerance"), true);
}

} // namespace ks
