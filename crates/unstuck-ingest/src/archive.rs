//! Archives (tar, tar.gz, tar.zst, tar.xz, zip), streamed entry by entry: nothing is extracted to disk.
//! Each entry is routed by its own path (`layout::route`), so a wrapping directory is fine and no
//! first pass is needed to recognise the format.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Component, Path};

use crate::{Collector, IngestError};

/// The container an input file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Packing {
    TarGz,
    TarZst,
    TarXz,
    Tar,
    Zip,
}

impl Packing {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Packing::TarGz => "tar.gz",
            Packing::TarZst => "tar.zst",
            Packing::TarXz => "tar.xz",
            Packing::Tar => "tar",
            Packing::Zip => "zip",
        }
    }
}

/// Which archive `p` is, if any (by magic bytes, never by name).
pub(crate) fn sniff_packing(p: &Path) -> Result<Option<Packing>, IngestError> {
    let mut f = File::open(p).map_err(|e| IngestError::io(p, e))?;
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]).map_err(|e| IngestError::io(p, e))? {
            0 => break,
            k => n += k,
        }
    }
    Ok(packing_of(&head[..n]))
}

pub(crate) fn packing_of(head: &[u8]) -> Option<Packing> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Packing::TarGz)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Packing::TarZst)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Some(Packing::TarXz)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Packing::Zip)
    } else if head.len() >= 262 && &head[257..262] == b"ustar" {
        Some(Packing::Tar)
    } else {
        None
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

pub(crate) fn read_archive(p: &Path, packing: Packing, c: &mut Collector) -> Result<(), IngestError> {
    let name = p.display().to_string();
    let f = File::open(p).map_err(|e| IngestError::io(p, e))?;
    let r = BufReader::with_capacity(1 << 20, f);
    match packing {
        Packing::Zip => read_zip(&name, r, c),
        // lzma-rs decodes into a writer: on its own thread, into a pipe the tar reader reads.
        Packing::TarXz => read_tar(&name, packing, XzPipe::new(r), c),
        _ => read_tar_from(&name, packing, r, c),
    }
}

/// An archive in memory (tests, fuzzing, `load_archive_reader`).
pub(crate) fn read_archive_bytes(name: &str, bytes: &[u8], c: &mut Collector) -> Result<(), IngestError> {
    match packing_of(bytes) {
        Some(Packing::Zip) => read_zip(name, std::io::Cursor::new(bytes), c),
        Some(Packing::TarXz) => {
            let mut out = Capped { v: Vec::new(), left: c.limits().max_archive_bytes };
            let mut r = bytes;
            lzma_rs::xz_decompress(&mut r, &mut out).map_err(|e| IngestError::Invalid {
                path: name.to_string(),
                msg: format!("not a readable tar.xz: {e}"),
            })?;
            read_tar(name, Packing::TarXz, &out.v[..], c)
        }
        Some(p) => read_tar_from(name, p, bytes, c),
        None => Err(IngestError::Invalid {
            path: name.to_string(),
            msg: "not an archive (tar, tar.gz, tar.zst, tar.xz or zip)".into(),
        }),
    }
}

/// A writer that refuses more than `left` bytes (decompression bombs).
struct Capped {
    v: Vec<u8>,
    left: u64,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.left {
            return Err(std::io::Error::other("decompressed size limit reached (possible decompression bomb)"));
        }
        self.left -= buf.len() as u64;
        self.v.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A tar stream compressed as `packing` says (not xz: see `read_archive`).
pub(crate) fn read_tar_from(name: &str, packing: Packing, r: impl Read, c: &mut Collector) -> Result<(), IngestError> {
    match packing {
        Packing::TarGz => read_tar(name, packing, flate2::read::MultiGzDecoder::new(r), c),
        Packing::TarZst => {
            let d = ruzstd::decoding::StreamingDecoder::new(r).map_err(|e| IngestError::Invalid {
                path: name.to_string(),
                msg: format!("not a readable tar.zst: {e}"),
            })?;
            read_tar(name, packing, d, c)
        }
        Packing::Tar => read_tar(name, packing, r, c),
        Packing::TarXz | Packing::Zip => Err(IngestError::Invalid {
            path: name.to_string(),
            msg: format!("a {} archive cannot be streamed here", packing.name()),
        }),
    }
}

/// The entries of a decompressed tar stream, routed one by one as they arrive.
fn read_tar(name: &str, packing: Packing, inner: impl Read, c: &mut Collector) -> Result<(), IngestError> {
    let bad = |e: &dyn std::fmt::Display| IngestError::Invalid {
        path: name.to_string(),
        msg: format!("not a readable {}: {e}", packing.name()),
    };
    let limits = c.limits();
    let mut ar = tar::Archive::new(Budget { inner, left: limits.max_archive_bytes });
    let entries = ar.entries().map_err(|e| bad(&e))?;
    let mut read_any = false;
    for entry in entries {
        let mut e = match entry {
            Ok(e) => e,
            Err(err) => {
                if !read_any {
                    return Err(bad(&err));
                }
                c.warn(format!("{name}: {err}; the archive is truncated or corrupt, entries before it were analysed"));
                break;
            }
        };
        read_any = true;
        let raw_path = String::from_utf8_lossy(&e.path_bytes()).into_owned();
        let shown = format!("{name}!{raw_path}");
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
        let Some(parts) = safe_parts(&raw_path) else {
            c.warn(format!("{shown}: unsafe path (absolute or ..) skipped"));
            continue;
        };
        let size = e.header().size().unwrap_or(0);
        match crate::tree::take_entry(c, &shown, &parts, size, &mut e) {
            // A read error inside the stream (truncated or corrupt): what came before is kept.
            Err(err @ IngestError::Io { .. }) => {
                c.warn(format!("{err}; the archive is truncated or corrupt, entries before it were analysed"));
                break;
            }
            r => r?,
        }
    }
    Ok(())
}

/// A zip archive: entries in the order its central directory lists them.
fn read_zip(name: &str, f: impl Read + std::io::Seek, c: &mut Collector) -> Result<(), IngestError> {
    read_zip_under(name, f, &[], c)
}

/// A zip archive found inside a directory layout (AKS Periscope's `<node>/<node>.zip`): its entries are
/// routed as if they were files under `prefix`, the zip's directory.
pub(crate) fn read_zip_under(
    name: &str,
    f: impl Read + std::io::Seek,
    prefix: &[String],
    c: &mut Collector,
) -> Result<(), IngestError> {
    let mut z = zip::ZipArchive::new(f)
        .map_err(|e| IngestError::Invalid { path: name.to_string(), msg: format!("not a readable zip: {e}") })?;
    let mut left = c.limits().max_archive_bytes;
    for i in 0..z.len() {
        let mut e = match z.by_index(i) {
            Ok(e) => e,
            Err(err) => {
                c.warn(format!("{name}: entry {i}: {err}; skipped"));
                continue;
            }
        };
        let raw_path = match e.name() {
            Ok(n) => n.into_owned(),
            Err(err) => {
                c.warn(format!("{name}: entry {i}: {err}; skipped"));
                continue;
            }
        };
        let shown = format!("{name}!{raw_path}");
        if e.is_dir() {
            continue;
        }
        if e.is_symlink() {
            c.warn(format!("{shown}: link entry not followed"));
            continue;
        }
        let Some(entry_parts) = safe_parts(&raw_path) else {
            c.warn(format!("{shown}: unsafe path (absolute or ..) skipped"));
            continue;
        };
        let mut parts = prefix.to_vec();
        parts.extend(entry_parts);
        let size = e.size();
        if size > left {
            return Err(IngestError::Invalid {
                path: shown,
                msg: "decompressed size limit reached (possible decompression bomb)".into(),
            });
        }
        left -= size;
        // The entry's declared size bounds what is read from it, whatever the compressed data says.
        let mut r = Budget { inner: &mut e, left: size.saturating_add(1) };
        match crate::tree::take_entry(c, &shown, &parts, size, &mut r) {
            Err(err @ IngestError::Io { .. }) => c.warn(format!("{err}; entry skipped")),
            r => r?,
        }
    }
    Ok(())
}

/// Path components of an archive entry, refusing absolute paths and `..`.
pub(crate) fn safe_parts(raw: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    for comp in Path::new(raw).components() {
        match comp {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then_some(parts)
}

/// An xz stream as a reader: lzma-rs decodes into a writer, so it runs on its own thread into a pipe.
struct XzPipe {
    rx: std::io::PipeReader,
    worker: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl XzPipe {
    fn new(r: impl Read + Send + 'static) -> Self {
        let (rx, mut tx) = std::io::pipe().expect("creating a pipe");
        let worker = std::thread::spawn(move || {
            let mut br = BufReader::new(r);
            lzma_rs::xz_decompress(&mut br, &mut tx).map_err(|e| e.to_string())
        });
        XzPipe { rx, worker: Some(worker) }
    }
}

impl Read for XzPipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rx.read(buf)?;
        if n == 0 {
            // End of the pipe: the decoder finished or failed; a failure is a read error.
            if let Some(w) = self.worker.take() {
                match w.join() {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => return Err(std::io::Error::other(format!("xz: {e}"))),
                    Err(_) => return Err(std::io::Error::other("xz decoder failed")),
                }
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_by_magic() {
        assert_eq!(packing_of(&[0x1f, 0x8b, 8, 0]), Some(Packing::TarGz));
        assert_eq!(packing_of(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Some(Packing::TarZst));
        assert_eq!(packing_of(b"\xfd7zXZ\x00\x00"), Some(Packing::TarXz));
        assert_eq!(packing_of(b"PK\x03\x04rest"), Some(Packing::Zip));
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert_eq!(packing_of(&tar), Some(Packing::Tar));
        assert_eq!(packing_of(b"{\"kind\": \"PodList\"}"), None);
        assert_eq!(packing_of(b""), None);
    }

    #[test]
    fn unsafe_paths_are_refused() {
        assert_eq!(safe_parts("a/./b"), Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(safe_parts("/etc/passwd"), None);
        assert_eq!(safe_parts("a/../../b"), None);
        assert_eq!(safe_parts(""), None);
    }
}
