#include "experimentdocument.h"

namespace ks {

namespace {

using Kind = SpecTableModel::Kind;

std::vector<SpecTableModel::Column> configColumns()
{
    return { { QStringLiteral("label"), QStringLiteral("Label"), Kind::Text,
                 QStringLiteral("Unique name of this configuration; the first one is the comparison baseline. "
                                "A grid's label is a template such as mns{max_num_seqs}, filled for each value") },
        { QStringLiteral("model"), QStringLiteral("Model"), Kind::TextList,
            QStringLiteral("Model name sent in requests and {model} in the server command; several, separated by "
                           "commas, make a grid over the models") } };
}

std::vector<SpecTableModel::Column> armColumns()
{
    return {
        { QStringLiteral("name"), QStringLiteral("Arm"), Kind::Text, QStringLiteral("Unique arm name") },
        { QStringLiteral("mode"), QStringLiteral("Mode"), Kind::Text,
            QStringLiteral("concurrency: a closed loop with N requests always in flight; rate: open-loop arrivals") },
        { QStringLiteral("concurrency"), QStringLiteral("Concurrency"), Kind::Integer,
            QStringLiteral("Requests in flight at all times (concurrency mode)") },
        { QStringLiteral("rate"), QStringLiteral("Rate/s"), Kind::Number,
            QStringLiteral("Mean arrivals per second (rate mode)") },
        { QStringLiteral("burstiness"), QStringLiteral("Burstiness"), Kind::Number,
            QStringLiteral("Gamma shape of the arrival gaps: 1 = Poisson, below 1 burstier (rate mode)") },
        { QStringLiteral("requests"), QStringLiteral("Requests"), Kind::Integer,
            QStringLiteral("Stop after this many requests") },
        { QStringLiteral("duration_s"), QStringLiteral("Duration s"), Kind::Number,
            QStringLiteral("Stop after this many seconds") },
        { QStringLiteral("input_tokens"), QStringLiteral("Input tok"), Kind::Integer,
            QStringLiteral("Prompt length in words (default: prompts.input_tokens)") },
        { QStringLiteral("max_tokens"), QStringLiteral("Max tok"), Kind::Integer,
            QStringLiteral("Output tokens per request (ignore_eos is set)") },
    };
}

std::pair<nlohmann::json*, std::string> parentOf(nlohmann::json& doc, const QString& path, bool create)
{
    const QStringList parts = path.split(QLatin1Char('.'));
    nlohmann::json* at = &doc;
    for (int i = 0; i + 1 < parts.size(); ++i) {
        const std::string key = parts[i].toStdString();
        if (!at->contains(key) || !(*at)[key].is_object()) {
            if (!create)
                return { nullptr, {} };
            (*at)[key] = nlohmann::json::object();
        }
        at = &(*at)[key];
    }
    return { at, parts.back().toStdString() };
}

} // namespace

ExperimentDocument::ExperimentDocument(QObject* parent)
    : QObject(parent)
    , m_configs(QStringLiteral("configs"), configColumns(),
          { { "label", "config" }, { "model", "sim-8b" }, { "knobs", { { "max_num_seqs", 128 } } } })
    , m_arms(QStringLiteral("arms"), armColumns(),
          { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 64 }, { "requests", 256 },
              { "max_tokens", 256 } })
{
    for (SpecTableModel* model : { &m_configs, &m_arms }) {
        connect(model, &QAbstractItemModel::dataChanged, this, [this](auto&&, auto&&, const QList<int>& roles) {
            if (roles.isEmpty() || roles.contains(Qt::EditRole))
                emit changed();
        });
        for (auto signal : { &QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved })
            connect(model, signal, this, &ExperimentDocument::changed);
        connect(model, &QAbstractItemModel::rowsMoved, this, &ExperimentDocument::changed);
    }
    QString ignored;
    load(QByteArray::fromStdString(newExperiment().dump()), &ignored);
}

const QHash<QString, QString>& ExperimentDocument::knobToolTips()
{
    static const QHash<QString, QString> tips = {
        { QStringLiteral("max_num_seqs"),
            QStringLiteral("Most sequences decoded at once (vLLM --max-num-seqs, SGLang --max-running-requests, "
                           "llama.cpp --parallel, Ollama OLLAMA_NUM_PARALLEL). Too low and requests queue for "
                           "prefill: the seed's 19x TTFT cliff. llama.cpp's --parallel N also splits --ctx-size "
                           "into N slots of ctx-size/N tokens each, unless --kv-unified is given.") },
        { QStringLiteral("max_num_batched_tokens"),
            QStringLiteral("Token budget of one engine step (vLLM --max-num-batched-tokens): limits chunked "
                           "prefill per step.") },
        { QStringLiteral("max_model_len"), QStringLiteral("Context length the server accepts (vLLM --max-model-len)") },
        { QStringLiteral("gpu_memory_utilization"),
            QStringLiteral("Share of GPU memory for weights and KV cache, 0-1 (vLLM --gpu-memory-utilization)") },
        { QStringLiteral("tensor_parallel_size"),
            QStringLiteral("GPUs one model is split across (vLLM --tensor-parallel-size)") },
    };
    return tips;
}

nlohmann::json ExperimentDocument::newExperiment()
{
    return { { "name", "experiment" },
        { "target", { { "base_url", "http://127.0.0.1:8000" }, { "api", "completions" } } },
        { "server",
            { { "command",
                  { "knobscope-sim", "--port", "8000", "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}" } },
                { "ready_path", "/health" }, { "ready_timeout_s", 60 } } },
        { "configs", { { { "label", "mns128" }, { "model", "sim-8b" }, { "knobs", { { "max_num_seqs", 128 } } } } } },
        { "arms",
            { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 64 }, { "requests", 256 },
                { "max_tokens", 256 } } } },
        { "prompts", { { "source", "synthetic" }, { "input_tokens", 128 }, { "seed", 1 } } } };
}

bool ExperimentDocument::load(const QByteArray& json, QString* error)
{
    nlohmann::json doc = nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        *error = QStringLiteral("not a JSON object: an experiment spec is one JSON object (docs/experiments.md)");
        return false;
    }
    m_configs.setRows(doc.value("configs", nlohmann::json::array()));
    m_configs.addKnobColumns(knobToolTips());
    m_arms.setRows(doc.value("arms", nlohmann::json::array()));
    doc.erase("configs");
    doc.erase("arms");
    m_doc = std::move(doc);
    m_problems.clear();
    emit loaded();
    emit changed();
    return true;
}

nlohmann::json ExperimentDocument::toJson() const
{
    nlohmann::json doc = m_doc;
    doc["configs"] = m_configs.rows();
    doc["arms"] = m_arms.rows();
    return doc;
}

QByteArray ExperimentDocument::toBytes() const
{
    return QByteArray::fromStdString(toJson().dump(2)) + '\n';
}

nlohmann::json ExperimentDocument::value(const QString& path) const
{
    const nlohmann::json* at = &m_doc;
    for (const QString& part : path.split(QLatin1Char('.'))) {
        const auto it = at->is_object() ? at->find(part.toStdString()) : at->end();
        if (!at->is_object() || it == at->end())
            return nullptr;
        at = &*it;
    }
    return *at;
}

void ExperimentDocument::setValue(const QString& path, const nlohmann::json& value)
{
    auto [parent, key] = parentOf(m_doc, path, !value.is_null());
    if (!parent)
        return;
    if (value.is_null())
        parent->erase(key);
    else
        (*parent)[key] = value;
    emit changed();
}

std::variant<ExperimentSpec, std::vector<SpecError>> ExperimentDocument::validate()
{
    auto parsed = parseExperimentSpec(toBytes());
    m_problems.clear();
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed)) {
        for (const SpecError& e : *errors) {
            const QString previous = m_problems.value(e.path);
            m_problems.insert(e.path, previous.isEmpty() ? e.message : previous + QLatin1Char('\n') + e.message);
        }
    }
    m_configs.setProblems(m_problems);
    m_arms.setProblems(m_problems);
    emit problemsChanged(m_problems);
    return parsed;
}

} // namespace ks
