//! `.tar.gz` bundles, streamed entry by entry: nothing is extracted to disk.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Component, Path};

use crate::logs::{scan_stream, LogFileHits};
use crate::{api, Collector, IngestError, KINDS};

pub(crate) fn looks_like_gzip(p: &Path) -> Result<bool, IngestError> {
    let mut f = File::open(p).map_err(|e| IngestError::io(p, e))?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(|e| IngestError::io(p, e))?;
    Ok(n == 2 && magic == [0x1f, 0x8b])
}

/// Where an archive entry goes, decided from its own path (so a wrapping directory is fine).
enum Item {
    Manifest,
    Api(&'static str),
    Log { node: String },
    Ignore,
}

fn classify(parts: &[String]) -> Item {
    let n = parts.len();
    if let Some(i) = parts.iter().position(|p| p == "_nodes") {
        if n >= i + 3 && crate::logs::is_log_name(&parts[n - 1]) {
            return Item::Log { node: parts[i + 1].clone() };
        }
        return Item::Ignore;
    }
    let name = parts[n - 1].as_str();
    if name == "unstuck-bundle.json" {
        return Item::Manifest;
    }
    let stem = name.strip_suffix(".json").or_else(|| name.strip_suffix(".yaml"));
    match stem.and_then(|s| KINDS.iter().map(|(k, _)| *k).find(|k| *k == s)) {
        Some(k) => Item::Api(k),
        None => Item::Ignore,
    }
}

/// Bound the decompressed bytes of the whole archive.
struct Budget<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other("decompressed size limit reached (possible decompression bomb)"));
        }
        let max = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

pub(crate) fn read_archive(p: &Path, c: &mut Collector) -> Result<(), IngestError> {
    let f = File::open(p).map_err(|e| IngestError::io(p, e))?;
    read_archive_from(&p.display().to_string(), BufReader::with_capacity(1 << 20, f), c)
}

/// A .tar.gz bundle from any reader (`name` is used in messages).
pub(crate) fn read_archive_from(name: &str, r: impl Read, c: &mut Collector) -> Result<(), IngestError> {
    let gz = flate2::read::GzDecoder::new(r);
    let limits = c.limits();
    let mut ar = tar::Archive::new(Budget { inner: gz, left: limits.max_archive_bytes });
    let archive = name.to_string();
    let entries = ar
        .entries()
        .map_err(|e| IngestError::Invalid { path: archive.clone(), msg: format!("not a readable tar.gz: {e}") })?;
    let mut read_any = false;
    for entry in entries {
        let mut e = match entry {
            Ok(e) => e,
            Err(err) => {
                if !read_any {
                    return Err(IngestError::Invalid { path: archive, msg: format!("not a readable tar.gz: {err}") });
                }
                c.warn(format!(
                    "{archive}: {err}; the archive is truncated or corrupt, entries before it were analysed"
                ));
                break;
            }
        };
        read_any = true;
        let raw_path = String::from_utf8_lossy(&e.path_bytes()).into_owned();
        let shown = format!("{archive}!{raw_path}");
        let ty = e.header().entry_type();
        if ty.is_dir() {
            continue;
        }
        if !ty.is_file() {
            if ty.is_symlink() || ty.is_hard_link() {
                c.warn(format!("{shown}: link entry not followed"));
            } else if !matches!(ty, tar::EntryType::XGlobalHeader | tar::EntryType::XHeader) {
                c.warn(format!("{shown}: special entry skipped"));
            }
            continue;
        }
        // Never trust entry paths: no absolute paths, no `..`.
        let mut parts = Vec::new();
        let mut bad = false;
        for comp in Path::new(&raw_path).components() {
            match comp {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::CurDir => {}
                _ => bad = true,
            }
        }
        if bad || parts.is_empty() {
            c.warn(format!("{shown}: unsafe path (absolute or ..) skipped"));
            continue;
        }
        match classify(&parts) {
            Item::Ignore => {}
            Item::Manifest => {
                let mut b = Vec::new();
                (&mut e)
                    .take(1 << 20)
                    .read_to_end(&mut b)
                    .map_err(|err| IngestError::Io { path: shown.clone(), cause: err })?;
                c.set_manifest(&shown, &b)?;
            }
            Item::Api(stem) => {
                let size = e.header().size().unwrap_or(0);
                if size > limits.max_api_file_bytes {
                    return Err(IngestError::Invalid {
                        path: shown,
                        msg: format!("entry is {size} bytes, over the limit of {}", limits.max_api_file_bytes),
                    });
                }
                let mut b = Vec::with_capacity(size as usize);
                (&mut e)
                    .take(limits.max_api_file_bytes)
                    .read_to_end(&mut b)
                    .map_err(|err| IngestError::Io { path: shown.clone(), cause: err })?;
                api::add_dump_file(c, &shown, stem, &b)?;
            }
            Item::Log { node } => {
                if !c.opts.logs {
                    continue;
                }
                let file = parts.iter().skip_while(|p| *p != "_nodes").cloned().collect::<Vec<_>>().join("/");
                let mut out = LogFileHits { node, file: file.clone(), ..Default::default() };
                let cat = &c.opts.catalog;
                if file.ends_with(".gz") {
                    scan_stream(cat, &limits, flate2::read::GzDecoder::new(&mut e), &mut out);
                } else {
                    scan_stream(cat, &limits, &mut e, &mut out);
                }
                c.log_files.push(out);
            }
        }
    }
    Ok(())
}
