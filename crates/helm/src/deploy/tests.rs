//! Unit tests of the cluster commands' order of work.

use super::*;

#[test]
fn parallel_keeps_order_and_limits() {
    let running = std::sync::atomic::AtomicUsize::new(0);
    let most = std::sync::atomic::AtomicUsize::new(0);
    let out = parallel(20, 3, |i| {
        let now = running.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        most.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(2));
        running.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        i * 2
    });
    assert_eq!(out, (0..20).map(|i| i * 2).collect::<Vec<_>>());
    assert!(most.load(std::sync::atomic::Ordering::SeqCst) <= 3);
    assert_eq!(parallel(5, 0, |i| i), vec![0, 1, 2, 3, 4]);
}

#[test]
fn summary_tables_as_helmfile_prints_them() {
    let a = Affected {
        upgraded: vec![AffectedRelease {
            name: "web".into(),
            namespace: "apps".into(),
            chart: "https://u:p@h/c.tgz".into(),
            version: "1.0.0".into(),
            seconds: 65,
        }],
        ..Affected::default()
    };
    assert_eq!(
        a.summary(),
        "\nUPDATED RELEASES:\nNAME   NAMESPACE   CHART                   VERSION   DURATION\nweb    apps        https://u:---@h/c.tgz   1.0.0         1m5s\n\n"
    );
}
