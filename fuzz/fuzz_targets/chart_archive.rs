//! Fuzzes packaged-chart loading: the input is taken as a tar stream, gzipped, and loaded
//! as a chart (tar parsing, path checks, Chart.yaml and values.yaml decoding, subcharts).
//! Any input must give a chart or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    if gz.write_all(data).is_err() {
        return;
    }
    let Ok(bytes) = gz.finish() else { return };
    let _ = capstan_chart::load::load_archive(&bytes);
});
