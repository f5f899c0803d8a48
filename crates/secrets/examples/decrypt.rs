//! Decrypts a sops file with the age keys sops would find, like `sops -d FILE`:
//! `cargo run -p capstan-secrets --example decrypt -- FILE`.

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: decrypt FILE");
        return std::process::ExitCode::FAILURE;
    };
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let ids = capstan_secrets::identities_from_env(&|k| std::env::var(k).ok(), &|f| {
        std::fs::read_to_string(f).ok()
    });
    match capstan_secrets::decrypt(&path, &data, &ids) {
        Ok(d) => {
            print!("{}", d.text());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
