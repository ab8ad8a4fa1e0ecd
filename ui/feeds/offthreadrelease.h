#pragma once

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <memory>

namespace ks {

/// Owns `value` so that, when the GUI thread drops the last reference, the
/// value is destroyed on a pool thread instead: a run file or comparison that
/// a newer one replaced can hold every arm so far, and freeing it would cost
/// the GUI thread time that grows with the experiment.
template <class T> std::shared_ptr<T> releasedOffGuiThread(T* value)
{
    return std::shared_ptr<T>(value, [](T* p) {
        const QCoreApplication* app = QCoreApplication::instance();
        QThreadPool* pool = QThreadPool::globalInstance();
        if (app && pool && QThread::currentThread() == app->thread())
            pool->start([p] { delete p; });
        else
            delete p;
    });
}

} // namespace ks
