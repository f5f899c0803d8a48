//! Fuzzes the unpacking of remote values archives: the first byte picks the format (tar,
//! tar.gz, tar.bz2, tar.xz, zip), the rest is the archive. Any input must unpack inside
//! the directory or give an error, never a panic or a file outside it.
#![no_main]

use capstan_fetch::unpack::{unpack, ArchiveKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let kind = match pick % 5 {
        0 => ArchiveKind::Tar,
        1 => ArchiveKind::TarGz,
        2 => ArchiveKind::TarBz2,
        3 => ArchiveKind::TarXz,
        _ => ArchiveKind::Zip,
    };
    let root = std::env::temp_dir().join(format!("capstan-fuzz-unpack-{}", std::process::id()));
    let dest = root.join("out");
    let _ = std::fs::remove_dir_all(&root);
    let _ = unpack(kind, rest, &dest);
    // Nothing beside the destination.
    if let Ok(entries) = std::fs::read_dir(&root) {
        for e in entries.flatten() {
            assert_eq!(e.file_name(), "out", "an entry escaped the destination");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
});
