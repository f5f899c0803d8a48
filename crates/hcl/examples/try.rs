//! Evaluates HCL values files as helmfile would and prints the values as YAML:
//! `cargo run -p capstan-hcl --example try -- a.hcl [b.hcl...]`.

fn main() -> std::process::ExitCode {
    let mut files = Vec::new();
    for f in std::env::args().skip(1) {
        match std::fs::read_to_string(&f) {
            Ok(t) => files.push((f, t)),
            Err(e) => {
                eprintln!("{f}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    match capstan_hcl::render(&files) {
        Ok(v) => match capstan_yaml::encode_helmfile(&capstan_value::Value::map_from(v)) {
            Ok(text) => {
                print!("{text}");
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}
