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
    // The first URL's password is replaced where it stood (text before it is unchanged).
    if let Some(i) = text.find("://") {
        let rest = &text[i + 3..];
        let authority = &rest[..rest.find(['/', ' ', '"', '\n']).unwrap_or(rest.len())];
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            if let Some((user, _)) = userinfo.split_once(':') {
                let want = format!("{user}:REDACTED");
                assert!(shown[i + 3..].starts_with(&want), "{shown:?}");
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
