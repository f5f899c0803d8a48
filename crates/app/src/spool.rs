//! Standard output held back until a command has succeeded, without holding all of it in
//! memory: text stays in memory up to a bound, then goes on to a private file (0600, in a
//! private directory removed on SIGINT/SIGTERM/SIGHUP as every other private file). A
//! command that fails prints nothing: `capstan template | kubectl apply -f -` never
//! applies half of the releases.

use std::io::Write;
use std::path::PathBuf;

/// In memory up to this many bytes (then spilled to a file): the output of 1,000
/// releases (about 1.4 MB) stays in memory; 20,000 releases peaked 35 MB higher with 16 MiB.
pub const IN_MEMORY_BYTES: usize = 4 << 20;

/// Output being collected.
pub struct Spool {
    limit: usize,
    memory: String,
    file: Option<SpoolFile>,
    /// The first write that failed (reported when the output is finished).
    failed: Option<std::io::Error>,
}

struct SpoolFile {
    dir: PathBuf,
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

/// Collected output: text, or a private file holding it (its directory to be removed
/// once printed: [`print_and_remove`]).
#[derive(Debug)]
pub enum Spooled {
    /// The output, in memory.
    Text(String),
    /// The output in a private file.
    File {
        /// The private directory (removed once printed).
        dir: PathBuf,
        /// The file in it.
        path: PathBuf,
    },
}

impl Default for Spool {
    fn default() -> Spool {
        Spool::new()
    }
}

impl Spool {
    /// A spool that spills past [`IN_MEMORY_BYTES`].
    pub fn new() -> Spool {
        Spool::with_limit(IN_MEMORY_BYTES)
    }

    /// A spool that spills past `limit` bytes.
    pub fn with_limit(limit: usize) -> Spool {
        Spool {
            limit,
            memory: String::new(),
            file: None,
            failed: None,
        }
    }

    /// Appends `text`.
    pub fn push(&mut self, text: &str) {
        if self.failed.is_some() {
            return;
        }
        if self.file.is_none() && self.memory.len() + text.len() <= self.limit {
            self.memory.push_str(text);
            return;
        }
        if let Err(e) = self.write(text) {
            self.failed = Some(e);
        }
    }

    fn write(&mut self, text: &str) -> std::io::Result<()> {
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                let host = capstan_state::host::OsHost::default();
                let dir = capstan_state::host::Host::write_private(
                    &host,
                    &[("stdout".to_string(), Vec::new())],
                )?;
                let path = dir.join("stdout");
                let out = match std::fs::OpenOptions::new().append(true).open(&path) {
                    Ok(f) => f,
                    Err(e) => {
                        remove(&dir);
                        return Err(e);
                    }
                };
                // Recorded before anything is written: a failed write leaves the
                // directory to `Drop`, which removes it.
                let file = self.file.insert(SpoolFile {
                    dir,
                    path,
                    out: std::io::BufWriter::with_capacity(1 << 20, out),
                });
                file.out
                    .write_all(std::mem::take(&mut self.memory).as_bytes())?;
                file
            }
        };
        file.out.write_all(text.as_bytes())
    }

    /// The output, or the first error writing it (the private file then removed).
    pub fn finish(mut self) -> std::io::Result<Spooled> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        match self.file.take() {
            None => Ok(Spooled::Text(std::mem::take(&mut self.memory))),
            Some(mut f) => match f.out.flush() {
                Ok(()) => Ok(Spooled::File {
                    dir: f.dir.clone(),
                    path: f.path.clone(),
                }),
                Err(e) => {
                    remove(&f.dir);
                    Err(e)
                }
            },
        }
    }
}

impl Drop for Spool {
    /// Output never finished (the command failed): its file goes.
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            remove(&f.dir);
        }
    }
}

/// Removes a spool's private directory.
pub fn remove(dir: &std::path::Path) {
    let host = capstan_state::host::OsHost::default();
    let _ = capstan_state::host::Host::remove_private(&host, dir);
}

/// Copies a spooled file to `out`, then removes its private directory.
pub fn print_and_remove(
    dir: &std::path::Path,
    path: &std::path::Path,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let copied = std::fs::File::open(path).and_then(|mut f| std::io::copy(&mut f, out));
    remove(dir);
    copied.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_stays_in_memory_and_big_output_goes_to_a_private_file() {
        let mut s = Spool::with_limit(10);
        s.push("hello ");
        s.push("you");
        assert!(matches!(s.finish().unwrap(), Spooled::Text(t) if t == "hello you"));

        let mut s = Spool::with_limit(10);
        s.push("hello ");
        s.push("world, ");
        s.push("and more");
        let Spooled::File { dir, path } = s.finish().unwrap() else {
            panic!("not spilled")
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "{mode:o}");
        }
        let mut out = Vec::new();
        print_and_remove(&dir, &path, &mut out).unwrap();
        assert_eq!(out, b"hello world, and more");
        assert!(!dir.exists());
    }

    #[test]
    fn output_never_finished_leaves_no_file() {
        let mut s = Spool::with_limit(4);
        s.push("more than four");
        let dir = s.file.as_ref().map(|f| f.dir.clone()).unwrap();
        assert!(dir.exists());
        drop(s);
        assert!(!dir.exists());
    }
}
