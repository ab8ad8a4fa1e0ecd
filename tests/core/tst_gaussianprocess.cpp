#include "experiment/gaussianprocess.h"

#include <QTest>

#include <cmath>

using namespace ks;

class TestGaussianProcess : public QObject {
    Q_OBJECT

private slots:
    void interpolatesWhatItWasShown()
    {
        std::vector<std::vector<double>> x;
        std::vector<double> y, noise;
        for (int i = 0; i <= 10; ++i) {
            x.push_back({ i / 10.0, 0.5 });
            y.push_back(std::sin(3 * i / 10.0));
            noise.push_back(1e-6);
        }
        GaussianProcess gp;
        gp.fit(x, y, noise);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const auto p = gp.predict(x[i]);
            QVERIFY2(std::abs(p.mean - y[i]) < 0.01, qPrintable(QString::number(p.mean - y[i])));
            QVERIFY(p.sd < 0.05);
        }
        // Between the points: close to the smooth curve, and less sure than at them.
        const auto between = gp.predict({ 0.35, 0.5 });
        QVERIFY(std::abs(between.mean - std::sin(1.05)) < 0.05);
        // Far along the other axis: back towards the mean, as unsure as the data's spread.
        const auto far = gp.predict({ 0.5, 5.0 });
        QVERIFY(far.sd > 0.3);
    }

    void noisyObservationsAreSmoothed()
    {
        std::vector<std::vector<double>> x { { 0.5, 0.5 }, { 0.5, 0.5 } };
        GaussianProcess gp;
        gp.fit(x, { 1.0, 3.0 }, { 1.0, 1.0 }); // one point seen twice: the mean lies between
        const auto p = gp.predict({ 0.5, 0.5 });
        QVERIFY(std::abs(p.mean - 2.0) < 0.3);
    }

    void expectedImprovementIsOneSided()
    {
        QCOMPARE(expectedImprovement({ 2.0, 0.0 }, 1.0), 1.0);
        QCOMPARE(expectedImprovement({ 0.0, 0.0 }, 1.0), 0.0);
        // With uncertainty, a point below the best can still improve on it, and more so the less sure it is.
        const double narrow = expectedImprovement({ 0.5, 0.1 }, 1.0);
        const double wide = expectedImprovement({ 0.5, 1.0 }, 1.0);
        QVERIFY(narrow >= 0 && narrow < 1e-3);
        QVERIFY(wide > 0.1);
    }
};

QTEST_GUILESS_MAIN(TestGaussianProcess)
#include "tst_gaussianprocess.moc"
