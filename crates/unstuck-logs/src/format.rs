//! Per-line log format detection and timestamp parsing.
//!
//! Formats (domain.md §6): journalctl `short` / `short-precise` (the same shape as RFC 3164 syslog in
//! `/var/log/messages`), `short-iso`, `-o json` export, RFC 5424 syslog, bare klog headers, dockerd /
//! containerd / CRI-O logfmt, and CRI container log lines. Detection is per line, so mixed files work.
//! Lines without a year (syslog, klog) get one inferred from the capture time; lines without a zone
//! are read in the context's time zone. Both assumptions are reported by the caller.

use std::borrow::Cow;

use jiff::civil::{Date, DateTime, Time as CivilTime};
use jiff::tz::TimeZone;
use jiff::Timestamp;

/// The format a line was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `journalctl -o json` export.
    JournalJson,
    /// RFC 5424 syslog.
    Rfc5424,
    /// RFC 3164 syslog and journalctl `short` / `short-precise` (no year).
    Syslog,
    /// journalctl `short-iso` / `short-iso-precise`.
    ShortIso,
    /// CRI container log line (`<RFC3339> stdout F msg`).
    Cri,
    /// A bare klog header (`E0322 15:23:27.490837 3904 file.go:1] msg`, no year).
    Klog,
    /// logfmt with a `time=` key (dockerd, containerd, CRI-O).
    Logfmt,
    Unknown,
}

/// How to interpret times that lack a year or a zone.
#[derive(Debug, Clone)]
pub struct TimeCtx {
    /// The capture time: lines without a year are placed in the year that puts them at or before it.
    pub reference: Timestamp,
    pub tz: TimeZone,
}

impl TimeCtx {
    pub fn utc(reference: Timestamp) -> Self {
        TimeCtx { reference, tz: TimeZone::UTC }
    }
}

/// A parsed line. Borrowed from the input except where a JSON message had to be decoded.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    pub format: Format,
    pub time: Option<Timestamp>,
    /// True when the year or zone were not in the line.
    pub inferred: bool,
    pub host: &'a [u8],
    /// The program or unit that wrote the line (`kubelet`, `dockerd`, `kernel`…).
    pub ident: Cow<'a, [u8]>,
    pub message: Cow<'a, [u8]>,
}

const MONTHS: [&[u8; 3]; 12] =
    [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];

/// The month a syslog/journald short timestamp starts with, and its length: `Mar` (C locale), or `3月` /
/// `11月` (journalctl under a Chinese or Japanese locale) and `3월` (Korean).
fn month_of(b: &[u8]) -> Option<(i8, usize)> {
    if let Some(i) = b.get(..3).and_then(|m3| MONTHS.iter().position(|m| &m[..] == m3)) {
        return Some((i as i8 + 1, 3));
    }
    let n = b.iter().take(3).take_while(|c| c.is_ascii_digit()).count();
    let month = digits(b.get(..n)?)?;
    let suffix = b.get(n..n + 3)?;
    ((1..=12).contains(&month) && (suffix == "月".as_bytes() || suffix == "월".as_bytes()))
        .then_some((month as i8, n + 3))
}

fn digits(b: &[u8]) -> Option<i32> {
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    let mut n = 0i32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (c - b'0') as i32;
    }
    Some(n)
}

/// `HH:MM:SS[.frac]` → time and the bytes consumed.
fn clock(b: &[u8]) -> Option<(CivilTime, usize)> {
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let h = digits(&b[0..2])?;
    let m = digits(&b[3..5])?;
    let s = digits(&b[6..8])?;
    let mut used = 8;
    let mut nanos = 0i32;
    if b.get(8) == Some(&b'.') {
        let frac_end = b[9..].iter().position(|c| !c.is_ascii_digit()).map_or(b.len(), |p| p + 9);
        let frac = &b[9..frac_end];
        let mut scale = 100_000_000;
        for &c in frac.iter().take(9) {
            nanos += (c - b'0') as i32 * scale;
            scale /= 10;
        }
        used = frac_end;
    }
    let t = CivilTime::new(h as i8, m as i8, s.min(59) as i8, nanos).ok()?;
    Some((t, used))
}

/// Place a month/day/time without a year at or before the reference time (New Year safe).
fn infer_year(ctx: &TimeCtx, month: i8, day: i8, t: CivilTime) -> Option<Timestamp> {
    let ref_year = ctx.reference.to_zoned(ctx.tz.clone()).year();
    for year in [ref_year, ref_year - 1] {
        let Ok(date) = Date::new(year, month, day) else {
            continue;
        };
        let ts = ctx.tz.to_timestamp(DateTime::from_parts(date, t)).ok()?;
        // Allow a day of clock skew between the node and the capture.
        if ts.as_second() <= ctx.reference.as_second() + 86_400 {
            return Some(ts);
        }
    }
    None
}

/// The deadline in the kubelet's `No retries permitted until <YYYY-MM-DD HH:MM:SS[.frac]> <±HHMM> <zone>`
/// (Go's default time format): a full date in a line whose own header may have no year.
pub fn retry_deadline(line: &[u8]) -> Option<Timestamp> {
    const MARK: &[u8] = b"No retries permitted until ";
    let b = &line[memchr::memmem::find(line, MARK)? + MARK.len()..];
    // The date and time (19 bytes), the fraction's digits (dropped: the year is what it is read for), a
    // space and the offset's five bytes.
    let frac = b.get(19..)?.iter().position(|&c| c != b'.' && !c.is_ascii_digit())?;
    let (date, off) = (std::str::from_utf8(b.get(..19)?).ok()?, b.get(19 + frac..19 + frac + 6)?);
    let s = format!("{date}{}", std::str::from_utf8(off).ok()?);
    jiff::fmt::strtime::parse("%Y-%m-%d %H:%M:%S %z", s).ok()?.to_timestamp().ok()
}

/// An RFC 3339 / ISO 8601 token (`2023-03-22T15:23:22.849+08:00`, `…+0800`, `…Z`).
pub fn iso_timestamp(tok: &[u8]) -> Option<Timestamp> {
    let s = std::str::from_utf8(tok).ok()?;
    if let Ok(t) = s.parse::<Timestamp>() {
        return Some(t);
    }
    // `+0800` → `+08:00`
    let b = s.as_bytes();
    if b.len() > 5 && s.is_char_boundary(s.len() - 5) {
        let (head, off) = s.split_at(s.len() - 5);
        let ob = off.as_bytes();
        if (ob[0] == b'+' || ob[0] == b'-') && ob[1..].iter().all(u8::is_ascii_digit) {
            let fixed = format!("{head}{}:{}", &off[..3], &off[3..]);
            return fixed.parse::<Timestamp>().ok();
        }
    }
    None
}

fn split_word(b: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b' ', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[b.len()..]),
    }
}

fn skip_spaces(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|&&c| c == b' ').count();
    &b[n..]
}

/// `host ident[pid]: msg` → (host, ident, msg).
fn host_ident_msg(rest: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let (host, rest) = split_word(rest);
    // The tag ends at the first ": " (the ident may carry `[pid]`).
    if let Some(i) = memchr::memmem::find(rest, b": ") {
        let tag = &rest[..i];
        if !tag.contains(&b' ') || tag.starts_with(b"kernel") {
            let ident = match memchr::memchr(b'[', tag) {
                Some(j) => &tag[..j],
                None => tag,
            };
            return (host, ident, &rest[i + 2..]);
        }
    }
    (host, b"", rest)
}

fn parse_syslog_date<'a>(ctx: &TimeCtx, b: &'a [u8]) -> Option<(Timestamp, &'a [u8])> {
    // `Mar 22 15:23:22[.frac] ` or `Mar  2 …` (or `11月 23 …` under a CJK locale)
    let (month, len) = month_of(b)?;
    if b.get(len) != Some(&b' ') {
        return None;
    }
    let rest = skip_spaces(&b[len + 1..]);
    let (day, rest) = split_word(rest);
    let day = digits(day)?;
    let (t, used) = clock(rest)?;
    let ts = infer_year(ctx, month, day as i8, t)?;
    Some((ts, rest.get(used + 1..).unwrap_or(b"")))
}

fn parse_klog_header(ctx: &TimeCtx, b: &[u8]) -> Option<Timestamp> {
    // `E0322 15:23:27.490837`
    if b.len() < 21 || !matches!(b[0], b'I' | b'W' | b'E' | b'F') || b[5] != b' ' {
        return None;
    }
    let month = digits(&b[1..3])? as i8;
    let day = digits(&b[3..5])? as i8;
    let (t, _) = clock(&b[6..])?;
    infer_year(ctx, month, day, t)
}

fn parse_logfmt_time(b: &[u8]) -> Option<Timestamp> {
    let i = memchr::memmem::find(b, b"time=")?;
    if i > 0 && b[i - 1] != b' ' {
        return None;
    }
    let v = &b[i + 5..];
    let tok = if v.first() == Some(&b'"') {
        let end = memchr::memchr(b'"', &v[1..])?;
        &v[1..1 + end]
    } else {
        split_word(v).0
    };
    iso_timestamp(tok)
}

fn journal_json(line: &[u8]) -> Option<Line<'_>> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let o = v.as_object()?;
    let time = o
        .get("__REALTIME_TIMESTAMP")
        .and_then(|t| t.as_str().and_then(|s| s.parse::<i64>().ok()).or_else(|| t.as_i64()))
        .and_then(|us| Timestamp::from_microsecond(us).ok());
    let message: Vec<u8> = match o.get("MESSAGE")? {
        serde_json::Value::String(s) => s.as_bytes().to_vec(),
        // journald exports non-UTF-8 messages as an array of bytes.
        serde_json::Value::Array(a) => a.iter().filter_map(|x| x.as_u64().map(|n| n as u8)).collect(),
        _ => return None,
    };
    let ident = o
        .get("SYSLOG_IDENTIFIER")
        .or_else(|| o.get("_SYSTEMD_UNIT"))
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .trim_end_matches(".service")
        .as_bytes()
        .to_vec();
    // The host, borrowed from the line (`journalctl -o json` writes `"_HOSTNAME":"name"`, no escapes in a
    // host name).
    let host = memchr::memmem::find(line, br#""_HOSTNAME":""#)
        .map(|i| &line[i + 13..])
        .and_then(|rest| memchr::memchr(b'"', rest).map(|end| &rest[..end]))
        .unwrap_or(b"");
    Some(Line {
        format: Format::JournalJson,
        time,
        inferred: false,
        host,
        ident: Cow::Owned(ident),
        message: Cow::Owned(message),
    })
}

/// A syslog / journald short-format line (`Mar 22 15:23:22 host unit[pid]: message`).
fn syslog_line<'a>(ctx: &TimeCtx, line: &'a [u8]) -> Option<Line<'a>> {
    let (ts, rest) = parse_syslog_date(ctx, line)?;
    let (host, ident, msg) = host_ident_msg(rest);
    Some(Line {
        format: Format::Syslog,
        time: Some(ts),
        inferred: true,
        host,
        ident: Cow::Borrowed(ident),
        message: Cow::Borrowed(msg),
    })
}

/// Parse one line (without its newline). Never fails: an unrecognised line is `Format::Unknown`
/// with the whole line as message.
pub fn parse_line<'a>(ctx: &TimeCtx, line: &'a [u8]) -> Line<'a> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let unknown = || Line {
        format: Format::Unknown,
        time: None,
        inferred: false,
        host: b"",
        ident: Cow::Borrowed(b""),
        message: Cow::Borrowed(line),
    };
    let Some(&first) = line.first() else {
        return unknown();
    };
    match first {
        b'{' => journal_json(line).unwrap_or_else(unknown),
        b'<' => {
            let Some(close) = line.iter().take(5).position(|&c| c == b'>') else {
                return unknown();
            };
            let body = &line[close + 1..];
            if body.len() > 2 && body[0].is_ascii_digit() && body[1] == b' ' {
                // RFC 5424: VERSION SP TIMESTAMP SP HOST SP APP SP PROCID SP MSGID SP SD SP MSG
                let (_, rest) = split_word(body);
                let (ts, rest) = split_word(rest);
                let (host, rest) = split_word(rest);
                let (app, rest) = split_word(rest);
                let (_, rest) = split_word(rest);
                let (_, rest) = split_word(rest);
                let msg = if rest.first() == Some(&b'[') {
                    let end = memchr::memmem::find(rest, b"] ").map_or(rest.len(), |i| i + 2);
                    &rest[end.min(rest.len())..]
                } else {
                    split_word(rest).1
                };
                let app: &[u8] = if app == b"-" { b"" } else { app };
                Line {
                    format: Format::Rfc5424,
                    time: iso_timestamp(ts),
                    inferred: false,
                    host,
                    ident: Cow::Borrowed(app),
                    message: Cow::Borrowed(msg),
                }
            } else {
                let mut l = parse_line(ctx, body);
                if l.format == Format::Syslog {
                    return l;
                }
                l.format = Format::Unknown;
                l
            }
        }
        b'0'..=b'9' => {
            let (tok, rest) = split_word(line);
            let Some(ts) = iso_timestamp(tok) else {
                // `11月 23 12:13:43 host unit[pid]: …`: journalctl's short format under a CJK locale.
                return syslog_line(ctx, line).unwrap_or_else(unknown);
            };
            let (second, tail) = split_word(rest);
            if (second == b"stdout" || second == b"stderr") && tail.len() >= 2 && tail[1] == b' ' {
                return Line {
                    format: Format::Cri,
                    time: Some(ts),
                    inferred: false,
                    host: b"",
                    ident: Cow::Borrowed(b""),
                    message: Cow::Borrowed(&tail[2..]),
                };
            }
            let (host, ident, msg) = host_ident_msg(rest);
            Line {
                format: Format::ShortIso,
                time: Some(ts),
                inferred: false,
                host,
                ident: Cow::Borrowed(ident),
                message: Cow::Borrowed(msg),
            }
        }
        b'I' | b'W' | b'E' | b'F' if line.len() > 5 && line[1].is_ascii_digit() => match parse_klog_header(ctx, line) {
            Some(ts) => {
                let msg = memchr::memmem::find(line, b"] ").map_or(line, |i| &line[i + 2..]);
                Line {
                    format: Format::Klog,
                    time: Some(ts),
                    inferred: true,
                    host: b"",
                    ident: Cow::Borrowed(b""),
                    message: Cow::Borrowed(msg),
                }
            }
            None => unknown(),
        },
        b't' if line.starts_with(b"time=") => Line {
            format: Format::Logfmt,
            time: parse_logfmt_time(line),
            inferred: false,
            host: b"",
            ident: Cow::Borrowed(b""),
            message: Cow::Borrowed(line),
        },
        _ => match syslog_line(ctx, line) {
            Some(l) => l,
            None => unknown(),
        },
    }
}

/// The most precise time a line carries: the embedded logfmt/klog time when the outer syslog header
/// only has seconds and no year, else the outer one.
pub fn best_time(ctx: &TimeCtx, l: &Line<'_>) -> (Option<Timestamp>, bool) {
    if l.format == Format::Syslog || l.format == Format::Unknown {
        if let Some(t) = parse_logfmt_time(&l.message) {
            return (Some(t), false);
        }
    }
    if l.time.is_none() {
        if let Some(t) = parse_klog_header(ctx, &l.message) {
            return (Some(t), true);
        }
    }
    (l.time, l.inferred)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> TimeCtx {
        TimeCtx::utc("2023-03-22T16:00:00Z".parse().unwrap())
    }

    #[test]
    fn table() {
        let c = ctx();
        // (line, format, time, identifier, message)
        type Case<'a> = (&'a [u8], Format, Option<&'a str>, &'a str, &'a str);
        let cases: &[Case] = &[
            (
                b"Mar 22 15:23:22 v-docker-k6 dockerd: time=\"2023-03-22T15:23:22.849523296+08:00\" level=warning msg=\"x\"",
                Format::Syslog,
                Some("2023-03-22T15:23:22Z"),
                "dockerd",
                "time=\"2023-03-22T15:23:22.849523296+08:00\" level=warning msg=\"x\"",
            ),
            (
                b"Mar  2 01:02:03.250000 node-1 kubelet[1234]: E0302 01:02:03.249 1234 pleg.go:1] PLEG is not healthy",
                Format::Syslog,
                Some("2023-03-02T01:02:03.25Z"),
                "kubelet",
                "E0302 01:02:03.249 1234 pleg.go:1] PLEG is not healthy",
            ),
            (
                b"2023-03-22T15:23:22+0800 node-1 kubelet[99]: hello",
                Format::ShortIso,
                Some("2023-03-22T07:23:22Z"),
                "kubelet",
                "hello",
            ),
            (
                b"<34>1 2023-03-22T15:23:22.003Z node-1 kubelet 99 - - msg here",
                Format::Rfc5424,
                Some("2023-03-22T15:23:22.003Z"),
                "kubelet",
                "msg here",
            ),
            (
                b"<13>Mar 22 15:23:22 node-1 kernel: nfs: server 10.0.0.5 not responding, still trying",
                Format::Syslog,
                Some("2023-03-22T15:23:22Z"),
                "kernel",
                "nfs: server 10.0.0.5 not responding, still trying",
            ),
            (
                b"E0322 15:23:27.490837    3904 proxier.go:1520] Failed to execute iptables-save",
                Format::Klog,
                Some("2023-03-22T15:23:27.490837Z"),
                "",
                "Failed to execute iptables-save",
            ),
            (
                b"time=\"2023-03-22T15:23:22.849523296+08:00\" level=warning msg=\"failed\"",
                Format::Logfmt,
                Some("2023-03-22T07:23:22.849523296Z"),
                "",
                "time=\"2023-03-22T15:23:22.849523296+08:00\" level=warning msg=\"failed\"",
            ),
            (
                b"2023-03-22T15:23:22.5Z stderr F oops",
                Format::Cri,
                Some("2023-03-22T15:23:22.5Z"),
                "",
                "oops",
            ),
            (
                br#"{"__REALTIME_TIMESTAMP":"1679498602000000","_HOSTNAME":"n","SYSLOG_IDENTIFIER":"kubelet","MESSAGE":"PLEG is not healthy"}"#,
                Format::JournalJson,
                Some("2023-03-22T15:23:22Z"),
                "kubelet",
                "PLEG is not healthy",
            ),
            (
                br#"{"__REALTIME_TIMESTAMP":"1679498602000000","_SYSTEMD_UNIT":"docker.service","MESSAGE":[104,255,105]}"#,
                Format::JournalJson,
                Some("2023-03-22T15:23:22Z"),
                "docker",
                "h\u{fffd}i",
            ),
            // journalctl's short format under a Chinese / Japanese (and Korean) locale.
            (
                "3月 22 12:13:43 xiahuhu-k8s01 kubelet[45480]: E0322 12:13:43.393891 45480 x.go:1] failed".as_bytes(),
                Format::Syslog,
                Some("2023-03-22T12:13:43Z"),
                "kubelet",
                "E0322 12:13:43.393891 45480 x.go:1] failed",
            ),
            (
                "11월  2 01:02:03 n1 containerd[9]: msg".as_bytes(),
                Format::Syslog,
                Some("2022-11-02T01:02:03Z"),
                "containerd",
                "msg",
            ),
            ("13月 22 12:13:43 h k: no such month".as_bytes(), Format::Unknown, None, "", "13月 22 12:13:43 h k: no such month"),
            (b"\xff\xfe garbage \x00", Format::Unknown, None, "", "\u{fffd}\u{fffd} garbage \0"),
            (b"", Format::Unknown, None, "", ""),
            (b"Mar", Format::Unknown, None, "", "Mar"),
            (b"Feb 30 10:00:00 h k: impossible date", Format::Unknown, None, "", "Feb 30 10:00:00 h k: impossible date"),
        ];
        for (input, fmt, time, ident, msg) in cases {
            let l = parse_line(&c, input);
            assert_eq!(l.format, *fmt, "{:?}", String::from_utf8_lossy(input));
            assert_eq!(
                l.time.map(|t| t.to_string()),
                time.map(|t| t.parse::<Timestamp>().unwrap().to_string()),
                "{:?}",
                String::from_utf8_lossy(input)
            );
            assert_eq!(String::from_utf8_lossy(&l.ident), *ident);
            assert_eq!(String::from_utf8_lossy(&l.message), *msg);
        }
    }

    /// The kubelet's retry deadline, in the zones and forms it is printed in; anything else is none.
    #[test]
    fn retry_deadline_reads_the_kubelets_full_date_or_nothing() {
        let at = |l: &[u8]| retry_deadline(l).map(|t| t.to_string());
        let ok = [
            (&b"failed. No retries permitted until 2023-03-22 15:12:03.919065 +0000 UTC m=+967942.4 (durationBeforeRetry 2m2s)"[..], "2023-03-22T15:12:03Z"),
            (b"No retries permitted until 2018-06-14 19:36:46.845913615 +0200 CEST m=+1842.05", "2018-06-14T17:36:46Z"),
            (b"No retries permitted until 2021-09-06 06:24:03.085198835 +0800 CST", "2021-09-05T22:24:03Z"),
            (b"No retries permitted until 2020-04-17 03:03:42 -0700 PDT", "2020-04-17T10:03:42Z"),
        ];
        for (line, want) in ok {
            assert_eq!(at(line).as_deref(), Some(want), "{}", String::from_utf8_lossy(line));
        }
        for bad in [
            &b"No retries permitted until"[..],
            b"No retries permitted until 2023-03-22",
            b"No retries permitted until 2023-13-22 15:12:03 +0000 UTC",
            b"No retries permitted until 2023-03-22 15:12:03 UTC",
            b"No retries permitted until 2023-03-22 15:12:03 +99xx UTC",
            b"No retries permitted until 2023-03-22 15:\xff\xfe:03 +0000",
            b"No retries permitted until \xe2\x82",
            b"permitted until 2023-03-22 15:12:03 +0000 UTC",
        ] {
            assert_eq!(at(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn year_inferred_across_new_year() {
        let c = TimeCtx::utc("2024-01-01T00:10:00Z".parse().unwrap());
        let l = parse_line(&c, b"Dec 31 23:59:59 n kubelet: x");
        assert_eq!(l.time.unwrap().to_string(), "2023-12-31T23:59:59Z");
        let l = parse_line(&c, b"Jan  1 00:05:00 n kubelet: x");
        assert_eq!(l.time.unwrap().to_string(), "2024-01-01T00:05:00Z");
        assert!(l.inferred);
    }

    #[test]
    fn zone_applied_to_zoneless_lines() {
        let c = TimeCtx {
            reference: "2023-03-22T16:00:00Z".parse().unwrap(),
            tz: TimeZone::get("Asia/Shanghai").unwrap_or(TimeZone::fixed(jiff::tz::offset(8))),
        };
        let l = parse_line(&c, b"Mar 22 15:23:22 n kubelet: x");
        assert_eq!(l.time.unwrap().to_string(), "2023-03-22T07:23:22Z");
    }

    #[test]
    fn journal_json_names_its_host() {
        let l =
            parse_line(&ctx(), br#"{"__REALTIME_TIMESTAMP":"1679498602000000","_HOSTNAME":"node-a","MESSAGE":"x"}"#);
        assert_eq!((l.format, l.host), (Format::JournalJson, &b"node-a"[..]));
        let l = parse_line(&ctx(), br#"{"__REALTIME_TIMESTAMP":"1679498602000000","MESSAGE":"\"_HOSTNAME\":\"no\""}"#);
        assert_eq!((l.format, l.host), (Format::JournalJson, &b""[..]));
    }

    #[test]
    fn best_time_prefers_embedded_precise_time() {
        let c = ctx();
        let l = parse_line(&c, b"Mar 22 07:23:22 h dockerd: time=\"2023-03-22T15:23:22.5+08:00\" level=info msg=\"x\"");
        let (t, inferred) = best_time(&c, &l);
        assert_eq!(t.unwrap().to_string(), "2023-03-22T07:23:22.5Z");
        assert!(!inferred);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let _ = parse_line(&ctx(), &bytes);
        }
        #[test]
        fn never_panics_on_near_valid(prefix in "(Mar|<1>|<13>1 |E0|time=\"|2023-|\\{)", tail in "[ -~]{0,60}") {
            let s = format!("{prefix}{tail}");
            let _ = parse_line(&ctx(), s.as_bytes());
        }
        #[test]
        fn retry_deadline_never_panics(tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..60)) {
            let mut line = b"No retries permitted until 2023-03-22 15:12:03".to_vec();
            for cut in 27..line.len() {
                let _ = retry_deadline(&[&line[..cut], &tail[..]].concat());
            }
            line.extend(&tail);
            let _ = retry_deadline(&line);
        }
    }
}

#[cfg(test)]
mod fuzz_regressions {
    use super::*;

    /// Found by `scripts/fuzz.sh` (log_line): an invalid day with an embedded logfmt time.
    #[test]
    fn crash_3f523842() {
        let data: &[u8] = b"Mar 32 15:23:22 v-doerd: time=\"1010-03-22T23:00000+p8:0ve' -03-2\xce\xab\xcd\x94le\"\x14";
        let ctx = TimeCtx::utc("2024-01-01T00:10:00Z".parse().unwrap());
        let l = parse_line(&ctx, data);
        let _ = best_time(&ctx, &l);
    }
}
