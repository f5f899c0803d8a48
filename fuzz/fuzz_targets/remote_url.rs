//! Fuzzes remote-source URL parsing (`git::`, `s3::`, `http(s)://`, archives): any text
//! parses or is local, the redacted form never holds the password, and the cache path
//! of any source stays inside the cache directory.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let shown = capstan_fetch::redact(text);
    if let Some((_, rest)) = text.split_once("://") {
        let authority = rest.split(['/', ' ', '"', '\n']).next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            if let Some((_, password)) = userinfo.split_once(':') {
                if password.len() > 3 && !password.contains(['/', '@', ' ', '"', ':']) {
                    assert!(!shown.contains(&format!(":{password}@")), "{shown:?}");
                }
            }
        }
    }
    let Some(src) = capstan_fetch::parse(text) else {
        return;
    };
    let home = std::path::PathBuf::from("/cache-home");
    let fetcher = capstan_fetch::Fetcher {
        home: home.clone(),
        env: Box::new(|_| None),
    };
    let (dir, file) = fetcher.cache_path(&src);
    for p in [&dir, &file] {
        assert!(p.starts_with(&home), "{p:?} is outside the cache");
        assert!(
            p.components().all(|c| !matches!(c, std::path::Component::ParentDir)),
            "{p:?} climbs"
        );
    }
});
