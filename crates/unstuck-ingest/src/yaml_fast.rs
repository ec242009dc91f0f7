//! A fast path for the block YAML that `kubectl get -o yaml`, `oc adm must-gather` and PyYAML print:
//! converted to JSON text in one pass over its lines, so that the JSON reader (`json.rs`) parses it.
//!
//! Only a conservative subset is accepted: block mappings and sequences (indented with spaces), plain,
//! single- and double-quoted scalars (also over several lines), literal block scalars (`|`, `|-`, `|+`),
//! empty flow collections (`{}`, `[]`), comments, one `---` before a document. Plain scalars become JSON
//! strings, except `true`/`false`, `null`/`~`/empty and numbers written the way JSON writes them; any plain
//! scalar YAML could read otherwise (`0x1F`, `.inf`, `+1`, `0123`, `True`, `yes` …) makes the conversion give
//! up. Anything else — anchors, aliases, tags, flow collections with content, complex keys, folded block
//! scalars, tabs in indentation, directives — gives up too, and the caller falls back to serde_yaml_ng, which
//! also produces every error message: what this module accepts it converts to exactly what serde_yaml_ng
//! reads (a property test checks that), and it never fails on its own.

/// Why the fast path gave up (the caller then parses with serde_yaml_ng).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported;

type R<T> = Result<T, Unsupported>;

struct Line<'a> {
    indent: usize,
    /// The line after its indentation, trailing spaces kept (block scalars need them).
    text: &'a str,
}

/// Mapping keys whose values no typed object of the model reads, at any depth of any kind it reads: the
/// typed readers skip their lines instead of converting them (`to_json_pruned`). A key here must never be a
/// field of the model (`crates/unstuck-ingest/tests/yaml_prune.rs` checks that); the raw reader
/// (`--raw-pods`, the upgrade predictor's full container specs) does not prune.
pub const UNREAD_KEYS: &[&str] = &[
    "managedFields",
    // Containers.
    "env",
    "envFrom",
    "volumeMounts",
    "volumeDevices",
    "resources",
    "ports",
    "securityContext",
    "readinessProbe",
    "livenessProbe",
    "startupProbe",
    "args",
    // Pod spec.
    "tolerations",
    "affinity",
    "topologySpreadConstraints",
    "dnsConfig",
    // Node status.
    "images",
    "volumesInUse",
    "volumesAttached",
    "allocatable",
    "capacity",
    "daemonEndpoints",
    // Workloads: their pod templates (pods are read as pods).
    "template",
    "volumeClaimTemplates",
];

/// The documents of a YAML stream, each as JSON text; `None` for an empty document.
pub fn to_json_docs(bytes: &[u8]) -> R<Vec<Option<String>>> {
    docs_with(bytes, &[])
}

/// One document as JSON text without the values of the mapping keys in `skip` (at any depth): their lines
/// are passed over, not converted and not checked.
pub fn to_json_pruned(bytes: &[u8], skip: &[&str]) -> R<Option<String>> {
    one(docs_with(bytes, skip)?)
}

fn docs_with(bytes: &[u8], skip: &[&str]) -> R<Vec<Option<String>>> {
    let src = std::str::from_utf8(bytes).map_err(|_| Unsupported)?;
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut docs = Vec::new();
    let mut lines: Vec<Line<'_>> = Vec::new();
    // Whether the current document was opened by `---` (then it exists even if empty).
    let mut open = false;
    let mut from = 0;
    let ends = memchr::memchr_iter(b'\n', src.as_bytes()).chain(std::iter::once(src.len()));
    for end in ends {
        let raw = &src[from..end];
        from = end + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw == "---" || raw.starts_with("--- ") {
            if raw.len() > 3 && !raw[3..].trim().is_empty() {
                return Err(Unsupported);
            }
            if open || !all_blank(&lines) {
                docs.push(convert(&lines, skip)?);
                lines.clear();
            }
            open = true;
            continue;
        }
        if raw.starts_with("...") || raw.starts_with('%') {
            return Err(Unsupported);
        }
        let indent = raw.bytes().take_while(|&b| b == b' ').count();
        if raw[indent..].starts_with('\t') {
            return Err(Unsupported);
        }
        lines.push(Line { indent, text: &raw[indent..] });
    }
    // A stream with no document reads as one empty document.
    if open || !all_blank(&lines) || docs.is_empty() {
        docs.push(convert(&lines, skip)?);
    }
    Ok(docs)
}

fn all_blank(lines: &[Line<'_>]) -> bool {
    lines.iter().all(|l| is_blank_or_comment(l.text))
}

/// One document as JSON text (`None`: empty).
pub fn to_json(bytes: &[u8]) -> R<Option<String>> {
    one(to_json_docs(bytes)?)
}

fn one(mut docs: Vec<Option<String>>) -> R<Option<String>> {
    match docs.len() {
        0 => Ok(None),
        1 => Ok(docs.pop().flatten()),
        _ => Err(Unsupported),
    }
}

fn is_blank_or_comment(t: &str) -> bool {
    match t.as_bytes().first() {
        None | Some(b'#') => true,
        Some(b' ' | b'\t') => t.trim_start().is_empty() || t.trim_start().starts_with('#'),
        Some(_) => false,
    }
}

fn convert(lines: &[Line<'_>], skip: &[&str]) -> R<Option<String>> {
    let mut p = Parser { lines, i: 0, out: String::with_capacity(lines.len() * 24), depth: 0, skip };
    p.skip_blank();
    if p.i >= lines.len() {
        return Ok(None);
    }
    let indent = lines[p.i].indent;
    p.node(indent, None)?;
    p.skip_blank();
    if p.i < lines.len() {
        return Err(Unsupported);
    }
    Ok(Some(p.out))
}

struct Parser<'a, 'l> {
    lines: &'l [Line<'a>],
    i: usize,
    out: String,
    depth: usize,
    skip: &'l [&'l str],
}

const MAX_DEPTH: usize = 256;

impl<'a> Parser<'a, '_> {
    fn skip_blank(&mut self) {
        while self.i < self.lines.len() && is_blank_or_comment(self.lines[self.i].text) {
            self.i += 1;
        }
    }

    /// A block node whose first line is `self.i`, at `indent`; `first` is the node's text when it starts
    /// on a line of its own parent (`- key: value`), at column `indent`.
    fn node(&mut self, indent: usize, first: Option<&'a str>) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        let text = match first {
            Some(t) => t,
            None => self.lines[self.i].text,
        };
        let r = if is_dash(text) {
            self.sequence(indent, first)
        } else if split_key(text)?.is_some() {
            self.mapping(indent, first)
        } else {
            Err(Unsupported)
        };
        self.depth -= 1;
        r
    }

    /// The text of a collection's next entry at `indent` (`first`, once, when the collection began on its
    /// parent's line); `None` at the collection's end. A line indented deeper than its collection is not
    /// one the entries before it took: refused.
    fn next_entry(
        &mut self,
        indent: usize,
        first: &mut Option<&'a str>,
        entry: fn(&str) -> bool,
    ) -> R<Option<&'a str>> {
        if let Some(t) = first.take() {
            return Ok(Some(t));
        }
        self.skip_blank();
        match self.lines.get(self.i) {
            Some(l) if l.indent == indent && entry(l.text) => Ok(Some(l.text)),
            Some(l) if l.indent > indent => Err(Unsupported),
            _ => Ok(None),
        }
    }

    fn sequence(&mut self, indent: usize, mut first: Option<&'a str>) -> R<()> {
        self.out.push('[');
        let mut n = 0;
        // At our indentation, a line that is no entry is the parent's next key (a sequence sits at its key's
        // indentation), or the parent's end.
        while let Some(text) = self.next_entry(indent, &mut first, is_dash)? {
            if n > 0 {
                self.out.push(',');
            }
            n += 1;
            let rest = text.get(1..).unwrap_or("");
            let pad = rest.bytes().take_while(|&b| b == b' ').count();
            let item = rest[pad..].trim_end();
            if item.is_empty() || item.starts_with('#') {
                // The item on the next lines.
                self.i += 1;
                self.skip_blank();
                match self.lines.get(self.i) {
                    Some(l) if l.indent > indent => {
                        let ind = l.indent;
                        self.node(ind, None)?;
                    }
                    _ => self.out.push_str("null"),
                }
            } else if is_dash(item) || split_key(item)?.is_some() {
                // A nested sequence or a mapping starting on the dash's line, at the item's column.
                self.node(indent + 1 + pad, Some(&rest[pad..]))?;
            } else {
                self.value(indent, item)?;
            }
        }
        self.out.push(']');
        Ok(())
    }

    fn mapping(&mut self, indent: usize, mut first: Option<&'a str>) -> R<()> {
        self.out.push('{');
        let mut n = 0;
        while let Some(text) = self.next_entry(indent, &mut first, |_| true)? {
            let Some((key, rest)) = split_key(text)? else { return Err(Unsupported) };
            if !self.skip.is_empty() && self.skip.iter().any(|k| k.len() == key.len() && *k == key.as_ref()) {
                self.pass_over(indent);
                continue;
            }
            if n > 0 {
                self.out.push(',');
            }
            n += 1;
            push_json_str(&mut self.out, &key);
            self.out.push(':');
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('#') {
                self.i += 1;
                self.skip_blank();
                match self.lines.get(self.i) {
                    Some(l) if l.indent > indent => {
                        let ind = l.indent;
                        self.node(ind, None)?;
                    }
                    // A sequence may sit at its key's own indentation.
                    Some(l) if l.indent == indent && is_dash(l.text) => {
                        self.node(indent, None)?;
                    }
                    _ => self.out.push_str("null"),
                }
            } else {
                self.value(indent, rest)?;
            }
        }
        self.out.push('}');
        Ok(())
    }

    /// Past the value of the key on line `self.i` at `indent`: every following line indented deeper (a
    /// block value, a scalar's continuation), blank, or a sequence entry at the key's own indentation.
    fn pass_over(&mut self, indent: usize) {
        self.i += 1;
        while let Some(l) = self.lines.get(self.i) {
            if !(l.text.is_empty() || l.indent > indent || (l.indent == indent && is_dash(l.text))) {
                break;
            }
            self.i += 1;
        }
    }

    /// A scalar (or empty flow collection) starting on line `self.i` after its key or dash; its
    /// continuation lines are indented more than `indent`.
    fn value(&mut self, indent: usize, v: &'a str) -> R<()> {
        match v.as_bytes()[0] {
            b'"' | b'\'' => self.quoted(indent, v),
            b'|' => self.literal(indent, v),
            b'{' | b'[' => {
                match strip_comment(v)? {
                    "{}" => self.out.push_str("{}"),
                    "[]" => self.out.push_str("[]"),
                    _ => return Err(Unsupported),
                }
                self.i += 1;
                Ok(())
            }
            b'&' | b'*' | b'!' | b'>' | b'%' | b'@' | b'`' | b'?' | b',' | b']' | b'}' => Err(Unsupported),
            _ => self.plain(indent, v),
        }
    }

    fn plain(&mut self, indent: usize, v: &'a str) -> R<()> {
        let first = strip_comment(v)?;
        self.i += 1;
        // Usually the next line is a sibling or a parent's: no continuation.
        match self.lines.get(self.i) {
            Some(l) if l.indent <= indent && !l.text.is_empty() => return self.plain_scalar(first),
            None => return self.plain_scalar(first),
            _ => {}
        }
        // Continuation lines (a long plain scalar folded by the emitter).
        let mut more: Vec<&str> = Vec::new();
        let mut j = self.i;
        while let Some(l) = self.lines.get(j) {
            let t = l.text.trim_end();
            if t.is_empty() {
                more.push("");
                j += 1;
                continue;
            }
            if l.indent <= indent || t.starts_with('#') {
                break;
            }
            let t = strip_comment(t)?;
            if colon_space(t) || t.ends_with(':') || t.starts_with("- ") || t == "-" {
                return Err(Unsupported);
            }
            more.push(t);
            j += 1;
        }
        while more.last() == Some(&"") {
            more.pop();
            j -= 1;
        }
        self.i = j;
        if more.is_empty() {
            return self.plain_scalar(first);
        }
        if colon_space(first) || space_hash(first).is_some() {
            return Err(Unsupported);
        }
        let mut s = String::from(first);
        fold(&mut s, &more);
        push_json_str(&mut self.out, &s);
        Ok(())
    }

    /// `v` is cut at its first ` #` (`strip_comment`).
    fn plain_scalar(&mut self, v: &str) -> R<()> {
        match resolve_with(v, true, false)? {
            Plain::Null => self.out.push_str("null"),
            Plain::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Plain::Number => self.out.push_str(v),
            Plain::Str => push_json_str(&mut self.out, v),
        }
        Ok(())
    }

    fn quoted(&mut self, indent: usize, v: &'a str) -> R<()> {
        let q = v.as_bytes()[0];
        // The scalar's lines, up to its closing quote.
        let mut parts: Vec<&str> = Vec::new();
        let mut cur = &v[1..];
        loop {
            if let Some(end) = closing_quote(cur, q) {
                parts.push(&cur[..end]);
                let after = cur[end + 1..].trim();
                if !(after.is_empty() || after.starts_with('#')) {
                    return Err(Unsupported);
                }
                self.i += 1;
                break;
            }
            parts.push(cur);
            self.i += 1;
            match self.lines.get(self.i) {
                Some(l) if l.indent > indent || l.text.trim_end().is_empty() => cur = l.text,
                _ => return Err(Unsupported),
            }
        }
        let s = if q == b'\'' { single(&parts) } else { double(&parts)? };
        push_json_str(&mut self.out, &s);
        Ok(())
    }

    fn literal(&mut self, indent: usize, v: &str) -> R<()> {
        let header = strip_comment(v)?;
        let chomp = match header {
            "|" => Chomp::Clip,
            "|-" => Chomp::Strip,
            "|+" => Chomp::Keep,
            _ => return Err(Unsupported),
        };
        self.i += 1;
        let start = self.i;
        let mut block: Option<usize> = None;
        let mut j = start;
        while let Some(l) = self.lines.get(j) {
            if l.text.is_empty() {
                j += 1;
                continue;
            }
            match block {
                None if l.indent > indent => block = Some(l.indent),
                None => break,
                Some(b) if l.indent >= b => {}
                Some(_) => break,
            }
            j += 1;
        }
        let Some(b) = block else {
            // No content: the empty string (trailing blank lines are not kept by `|`/`|-`).
            if chomp == Chomp::Keep && j > start {
                return Err(Unsupported);
            }
            self.i = j;
            self.out.push_str("\"\"");
            return Ok(());
        };
        let mut s = String::new();
        let mut seen = false;
        for l in &self.lines[start..j] {
            if l.text.is_empty() {
                if l.indent > b {
                    if !seen {
                        // Spaces beyond the indentation before the first content line: YAML's rules differ.
                        return Err(Unsupported);
                    }
                    s.push_str(&" ".repeat(l.indent - b));
                }
                s.push('\n');
            } else {
                seen = true;
                s.push_str(&" ".repeat(l.indent - b));
                s.push_str(l.text);
                s.push('\n');
            }
        }
        // Blank lines at the end belong to the chomping.
        let body = s.trim_end_matches('\n');
        let out = match chomp {
            Chomp::Strip => body.to_string(),
            Chomp::Clip => format!("{body}\n"),
            Chomp::Keep => s.clone(),
        };
        self.i = j;
        push_json_str(&mut self.out, &out);
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// A block sequence entry: `- …` or a lone `-`.
fn is_dash(text: &str) -> bool {
    text.trim_end() == "-" || text.starts_with("- ")
}

/// `key: rest` (or `key:` at the end of the line), the key plain or quoted. `None`: not a key line.
fn split_key(text: &str) -> R<Option<(std::borrow::Cow<'_, str>, &str)>> {
    if is_dash(text) {
        return Ok(None);
    }
    let b = text.as_bytes();
    match b.first() {
        None => return Ok(None),
        Some(b'"' | b'\'') => {
            let q = b[0];
            let Some(end) = closing_quote(&text[1..], q) else { return Err(Unsupported) };
            let raw = &text[1..1 + end];
            let after = &text[2 + end..];
            let Some(rest) = after.strip_prefix(':') else { return Ok(None) };
            if !(rest.is_empty() || rest.starts_with(' ')) {
                return Err(Unsupported);
            }
            let key = if q == b'\'' { single(&[raw]) } else { double(&[raw])? };
            return Ok(Some((key.into(), rest)));
        }
        Some(b'?' | b'&' | b'*' | b'!' | b'[' | b'{' | b'|' | b'>' | b'%' | b'@' | b'`') => {
            return if text.contains(':') { Err(Unsupported) } else { Ok(None) };
        }
        Some(b'#') => return Ok(None),
        _ => {}
    }
    // Keys are short: a plain loop beats memchr's per-call setup.
    for at in (0..b.len()).filter(|&i| b[i] == b':') {
        let next = b.get(at + 1);
        if next.is_none() || next == Some(&b' ') {
            let key = &text[..at];
            if space_hash(key).is_some() || key.ends_with(' ') {
                return Err(Unsupported);
            }
            // A plain key YAML could read as something other than a string, or the merge key.
            // (Cut at the first `: `, and checked for ` #` above.)
            if key == "<<" || !matches!(resolve_with(key, false, false)?, Plain::Str) {
                return Err(Unsupported);
            }
            return Ok(Some((key.into(), &text[at + 1..])));
        }
    }
    Ok(None)
}

/// Cut a plain value's ` #comment`; a `#` without a space before it is content.
fn strip_comment(v: &str) -> R<&str> {
    let v = v.trim_end();
    match space_hash(v) {
        Some(i) => Ok(v[..i].trim_end()),
        None => Ok(v),
    }
}

/// Where ` #` starts in `v`.
fn space_hash(v: &str) -> Option<usize> {
    let b = v.as_bytes();
    if !has(b, b'#') {
        return None;
    }
    (1..b.len()).find(|&i| b[i] == b'#' && b[i - 1] == b' ').map(|i| i - 1)
}

/// Whether `v` holds `: ` (a mapping indicator inside a plain scalar).
fn colon_space(v: &str) -> bool {
    let b = v.as_bytes();
    has(b, b':') && (0..b.len().saturating_sub(1)).any(|i| b[i] == b':' && b[i + 1] == b' ')
}

/// Whether `x` is in `b`: most scalars are short, where memchr's per-call setup costs more than a loop
/// without an early exit; the exact search then runs only on the few that hold `x`.
fn has(b: &[u8], x: u8) -> bool {
    if b.len() >= 32 {
        return memchr::memchr(x, b).is_some();
    }
    b.iter().fold(false, |acc, &c| acc | (c == x))
}

/// The byte offset of the quote that closes a scalar opened by `q`, in `s` (after the opening quote).
fn closing_quote(s: &str, q: u8) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if q == b'"' => i += 2,
            c if c == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// Join a flow scalar's lines: a line break is a space, each empty line a newline.
fn fold(s: &mut String, more: &[&str]) {
    let mut empties = 0;
    for t in more {
        if t.is_empty() {
            empties += 1;
            continue;
        }
        if empties == 0 {
            s.push(' ');
        } else {
            for _ in 0..empties {
                s.push('\n');
            }
        }
        empties = 0;
        s.push_str(t.trim());
    }
}

fn single(parts: &[&str]) -> String {
    flow_lines(parts, false).unwrap_or_default()
}

fn double(parts: &[&str]) -> R<String> {
    flow_lines(parts, true)
}

/// The content of a quoted scalar from its lines (between the quotes): a line break folds to a space, each
/// empty line is a newline, a double-quoted line ending in `\` joins the next without a space.
fn flow_lines(parts: &[&str], double: bool) -> R<String> {
    let mut s = String::new();
    let mut empties = 0usize;
    let mut joined = false;
    for (n, p) in parts.iter().enumerate() {
        let last = n + 1 == parts.len();
        let mut t = if n == 0 { *p } else { p.trim_start_matches([' ', '\t']) };
        let mut escaped_break = false;
        if !last {
            let te = t.trim_end_matches([' ', '\t']);
            let slashes = te.len() - te.trim_end_matches('\\').len();
            if double && slashes % 2 == 1 {
                if te.len() != t.len() {
                    // `\ ` (an escaped space) before the line break: left to serde_yaml_ng.
                    return Err(Unsupported);
                }
                t = &te[..te.len() - 1];
                escaped_break = true;
            } else {
                t = te;
            }
        }
        if n > 0 {
            if t.is_empty() && !last && !escaped_break {
                empties += 1;
                continue;
            }
            if joined {
                if empties > 0 {
                    return Err(Unsupported);
                }
            } else if empties == 0 {
                s.push(' ');
            } else {
                s.extend(std::iter::repeat_n('\n', empties));
            }
            empties = 0;
        }
        if double {
            unescape(t, &mut s)?;
        } else {
            s.push_str(&t.replace("''", "'"));
        }
        joined = escaped_break;
    }
    Ok(s)
}

fn unescape(p: &str, s: &mut String) -> R<()> {
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            s.push(c);
            continue;
        }
        let e = chars.next().ok_or(Unsupported)?;
        let hex = |chars: &mut std::str::Chars<'_>, n: usize| -> R<char> {
            let h: String = chars.by_ref().take(n).collect();
            if h.len() != n {
                return Err(Unsupported);
            }
            let v = u32::from_str_radix(&h, 16).map_err(|_| Unsupported)?;
            char::from_u32(v).ok_or(Unsupported)
        };
        s.push(match e {
            '\\' => '\\',
            '"' => '"',
            '/' => '/',
            ' ' => ' ',
            'n' => '\n',
            't' | '\t' => '\t',
            'r' => '\r',
            '0' => '\0',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' => '\u{1b}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            'N' => '\u{85}',
            '_' => '\u{a0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            _ => return Err(Unsupported),
        });
    }
    Ok(())
}

enum Plain {
    Null,
    Bool(bool),
    /// Written the way JSON writes numbers: copied as is.
    Number,
    Str,
}

/// How a plain scalar reads: only the unambiguous cases; anything YAML might read as a non-string in
/// another way is refused. `colon`, `hash`: whether `v` can still hold `: ` or ` #` (not when it is a key
/// cut at its first `: ` or a value cut at its first ` #`): those scans are the costly part on long values.
fn resolve_with(v: &str, colon: bool, hash: bool) -> R<Plain> {
    match v {
        "" | "~" | "null" => return Ok(Plain::Null),
        "true" => return Ok(Plain::Bool(true)),
        "false" => return Ok(Plain::Bool(false)),
        _ => {}
    }
    let b = v.as_bytes();
    let first = b[0];
    if v.len() <= 5
        && ["null", "true", "false", "yes", "no", "on", "off", "y", "n"].iter().any(|w| v.eq_ignore_ascii_case(w))
    {
        return Err(Unsupported);
    }
    if first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.' {
        if is_json_number(v) {
            // Integers that do not fit 64 bits, and floats whose text serde would round, are left to serde_yaml_ng.
            if !v.contains(['.', 'e', 'E']) && v.parse::<i64>().is_err() && v.parse::<u64>().is_err() {
                return Err(Unsupported);
            }
            // Floats: parsers round their text differently; left to serde_yaml_ng.
            if v.contains(['.', 'e', 'E']) {
                return Err(Unsupported);
            }
            return Ok(Plain::Number);
        }
        // Dates, versions, names starting with a digit or a dash: strings, unless they could be a number.
        let radix = |prefix: &str, ok: fn(u8) -> bool| {
            v.strip_prefix(prefix).is_some_and(|r| !r.is_empty() && r.bytes().all(|c| ok(c) || c == b'_'))
        };
        let could_be_number = v.len() > 1
            && (radix("0x", |c| c.is_ascii_hexdigit())
                || radix("0o", |c| (b'0'..=b'7').contains(&c))
                || radix("0b", |c| c == b'0' || c == b'1')
                || v.starts_with('+')
                || v.starts_with('.')
                || v.starts_with("-.")
                || looks_like_float(v.strip_prefix('-').unwrap_or(v))
                || v.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'_' | b':' | b'-')));
        if could_be_number || v == "-" || v.starts_with("- ") {
            return Err(Unsupported);
        }
    }
    if matches!(
        first,
        b'"' | b'\'' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b'#' | b'{' | b'[' | b',' | b'?'
    ) || v.ends_with(':')
        || v.ends_with(' ')
        || (colon && colon_space(v))
        || (hash && space_hash(v).is_some())
    {
        return Err(Unsupported);
    }
    Ok(Plain::Str)
}

/// `[0-9_]+(\.[0-9_]*)?([eE][-+]?[0-9]+)?`: what YAML (with 1.1's underscores) could read as a number. An
/// address like `10.0.1.23` is not.
fn looks_like_float(v: &str) -> bool {
    let b = v.as_bytes();
    let mut i = 0;
    let int = b.iter().take_while(|c| c.is_ascii_digit() || **c == b'_').count();
    if int == 0 {
        return false;
    }
    i += int;
    if b.get(i) == Some(&b'.') {
        i += 1;
        i += b[i..].iter().take_while(|c| c.is_ascii_digit() || **c == b'_').count();
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

fn is_json_number(v: &str) -> bool {
    let b = v.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - s
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    // Without an early exit the check vectorizes; most strings need no escape.
    if !s.bytes().fold(false, |acc, b| acc | (b == b'"') | (b == b'\\') | (b < 0x20)) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// What serde_yaml_ng reads from `y`, document by document.
    fn serde_docs(y: &str) -> Result<Vec<Value>, serde_yaml_ng::Error> {
        use serde::Deserialize;
        serde_yaml_ng::Deserializer::from_str(y).map(Value::deserialize).collect()
    }

    fn fast_docs(y: &[u8]) -> R<Vec<Value>> {
        Ok(to_json_docs(y)?
            .into_iter()
            .map(|d| d.map_or(Value::Null, |j| serde_json::from_str(&j).unwrap_or_else(|e| panic!("{e}: {j}"))))
            .collect())
    }

    /// Accepted, and read exactly as serde_yaml_ng reads it.
    #[track_caller]
    fn same(y: &str) {
        let want = serde_docs(y).unwrap_or_else(|e| panic!("serde_yaml_ng: {e}\n{y}"));
        let got = fast_docs(y.as_bytes()).unwrap_or_else(|_| panic!("refused:\n{y}"));
        assert_eq!(got, want, "\n{y}");
    }

    #[track_caller]
    fn refused(y: &str) {
        assert_eq!(to_json_docs(y.as_bytes()).err(), Some(Unsupported), "\n{y}");
    }

    /// A pod as `kubectl get pods -o yaml` prints it (go-yaml: sequences at their key's indentation, literal
    /// blocks, quoted strings that look like numbers), in a List.
    const KUBECTL: &str = r#"apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"web","namespace":"shop"}}
      note: "a: b # not a comment"
    creationTimestamp: "2026-11-23T10:00:00Z"
    deletionGracePeriodSeconds: 30
    deletionTimestamp: "2026-11-23T10:05:00Z"
    finalizers:
    - example.com/block
    labels:
      app: web
      version: "1"
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:labels:
            .: {}
            f:app: {}
        f:status:
          f:conditions:
            k:{"type":"Ready"}:
              .: {}
      manager: kubelet
      operation: Update
      time: "2026-11-23T10:00:00Z"
    name: web-0
    namespace: shop
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: StatefulSet
      name: web
      uid: 0b9a6c1e-1111-4222-8333-444455556666
    resourceVersion: "184467"
    uid: c326b874-5fb9-4591-81b2-588df33bd1af
  spec:
    containers:
    - command:
      - /bin/sh
      - -c
      - |
        echo start
        sleep 3600
      image: registry.example.com/web:1.4.2
      lifecycle:
        postStart:
          exec:
            command: ["/bin/true"]
      name: web
      resources: {}
    nodeName: ip-10-0-1-23.ec2.internal
    tolerations: []
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2026-11-23T10:00:00Z"
      message: 'containers with unready status: [web]'
      reason: ContainersNotReady
      status: "False"
      type: Ready
    containerStatuses:
    - containerID: containerd://3f4e5d
      image: registry.example.com/web:1.4.2
      lastState:
        terminated:
          exitCode: 137
          finishedAt: "2026-11-23T09:59:00Z"
          message: "The node was low on resource: memory. Threshold quantity: 100Mi, available 9804Ki.\n"
          reason: OOMKilled
      ready: false
      restartCount: 3
      started: false
      state:
        waiting:
          message: back-off 40s restarting failed container=web pod=web-0_shop(c326b874-5fb9-4591-81b2-588df33bd1af)
          reason: CrashLoopBackOff
    phase: Running
    qosClass: BestEffort
kind: List
metadata:
  resourceVersion: ""
"#;

    #[test]
    fn kubectl_output_is_read_as_serde_yaml_ng_reads_it() {
        // The flow sequence on one line is refused; without it the document is accepted.
        refused(KUBECTL);
        same(&KUBECTL.replace(r#"command: ["/bin/true"]"#, "command:\n            - /bin/true"));
    }

    #[test]
    fn scalars() {
        same("a: 1\nb: -2\ne: true\nf: false\ng: null\nh: ~\ni:\nj: web-1\nk: 2024-06-03T12:00:00Z\n");
        same("a: '1'\nb: \"true\"\nc: 'it''s'\nd: \"tab\\tquote\\\" slash\\\\ \\u00e9 \\x41\"\ne: \"\"\nf: ''\n");
        same("url: http://example.com:8080/x\nk:v: 1\n.: {}\nempty: []\nhash: a#b\n");
        same("hostIP: 10.0.1.23\nuid: 0b9a6c1e-1111-4222-8333-444455556666\nv: 1.2.3\nx: 0xyz\n");
        same("a: 1 # a comment\n# a whole line\nb: two words  # another\n");
        same("- a\n- - b\n  - c\n- k: v\n  l: w\n-\n  - d\n");
        same("top:\n- 1\n- 2\nnext: x\n");
        same("a: 9223372036854775807\nb: 0\nc: -7\n");
    }

    #[test]
    fn multi_line_scalars() {
        // Plain and quoted scalars folded by an emitter at 80 columns; literal blocks with each chomping.
        same("msg: a long message that the emitter\n  folded over two lines\nnext: x\n");
        same("msg: first\n\n  second paragraph\n");
        same("msg: 'single quoted\n  over two lines'\n");
        same("msg: \"double quoted\n  over lines\\n with an escape\"\n");
        same("msg: \"joined\\\n  \\ without a space\"\n");
        same("msg: \"line one\n\n  line three\"\n");
        same("a: |\n  line 1\n    indented\n\n  line 4\nb: |-\n  no newline\nc: |+\n  keep\n\nd: x\n");
        same("- |\n  in a sequence\n- after\n");
        same("a: |\n\nb: 1\n");
    }

    #[test]
    fn documents() {
        same("---\na: 1\n");
        same("a: 1\n---\nb: 2\n");
        same("---\na: 1\n---\n");
        same("");
        same("# only a comment\n");
    }

    #[test]
    fn refused_constructs_fall_back() {
        for y in [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: {b: 1}\n",
            "a: [1, 2]\n",
            "? complex\n: key\n",
            "a: >\n  folded\n",
            "a: |2\n   explicit\n",
            "a:\n\tb: 1\n",
            "a: 0x1F\n",
            "a: 0o17\n",
            "a: yes\n",
            "a: .inf\n",
            "a: +1\n",
            "a: 0123\n",
            "a: True\n",
            "a: NULL\n",
            "1: one\n",
            "<<: {}\n",
            "%YAML 1.2\n---\na: 1\n",
            "just a scalar\n",
            "a: 1\n  b: 2\n",
            "a: \"unterminated\n",
            "a: 123456789012345678901234567890\n",
            "a: 1.5\n",
            "a: 1_000\n",
            "a: 1:20\n",
            "a: 1.\n",
            "a: 2e3\n",
        ] {
            refused(y);
        }
    }

    #[test]
    fn bad_bytes_and_extremes_are_refused_or_read_never_panic() {
        assert_eq!(to_json(b"a: \xff\xfe\n"), Err(Unsupported));
        let long = format!("a: {}\n", "x".repeat(1 << 20));
        same(&long);
        let mut deep = String::new();
        for i in 0..300 {
            deep.push_str(&" ".repeat(i * 2));
            deep.push_str("k:\n");
        }
        assert_eq!(to_json(deep.as_bytes()), Err(Unsupported), "deeper than the limit");
        for y in ["-", "- ", ":", ": x", "a:b", "'", "\"", "|", "a: |\n", "- - - -", "a:\n- \n-", "\u{feff}a: 1"] {
            if let (Ok(got), Ok(want)) = (fast_docs(y.as_bytes()), serde_docs(y)) {
                assert_eq!(got, want, "{y:?}");
            }
        }
    }

    /// Every YAML file in the test data (kubectl, must-gather, support bundle fixtures) that serde_yaml_ng
    /// reads is either refused or read the same; most are read.
    #[test]
    fn fixtures_agree_with_serde_yaml_ng() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut stack = vec![root];
        let (mut read, mut total) = (0, 0);
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let Ok(want) = serde_docs(&text) else { continue };
                    total += 1;
                    if let Ok(got) = fast_docs(text.as_bytes()) {
                        assert_eq!(got, want, "{}", p.display());
                        read += 1;
                    }
                }
            }
        }
        assert!(total >= 10 && read * 10 >= total * 8, "fast path read {read} of {total} fixtures");
    }

    fn value() -> impl Strategy<Value = Value> {
        let text = prop_oneof![
            "[a-z][a-z0-9./-]{0,12}",
            "[ -~]{0,30}",
            Just("yes".to_string()),
            Just("0x1F".to_string()),
            Just("1e3".to_string()),
            Just(".inf".to_string()),
            Just("null".to_string()),
            Just(" lead and trail ".to_string()),
            Just("a: b # c".to_string()),
            Just("line\nbreak\n".to_string()),
            Just("ünïcödé ✓".to_string()),
            Just("- dash".to_string()),
            "[a-z ]{60,120}",
        ];
        // Floats are rare in Kubernetes objects (and always left to serde_yaml_ng).
        let leaf = prop_oneof![
            2 => Just(Value::Null),
            2 => any::<bool>().prop_map(Value::Bool),
            2 => any::<i64>().prop_map(Value::from),
            1 => (-1e6f64..1e6).prop_map(Value::from),
            6 => text.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(text.clone(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The property below is only as strong as what the fast path accepts of serde_yaml_ng's output.
    #[test]
    fn most_generated_documents_are_accepted() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut accepted, n) = (0, 400);
        for _ in 0..n {
            let v = value().new_tree(&mut runner).unwrap().current();
            let y = serde_yaml_ng::to_string(&v).unwrap();
            if let Ok(got) = fast_docs(y.as_bytes()) {
                assert_eq!(got, serde_docs(&y).unwrap(), "{y}");
                accepted += 1;
            }
        }
        assert!(accepted * 3 >= n, "accepted {accepted} of {n}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn whatever_it_accepts_it_reads_as_serde_yaml_ng_does(v in value()) {
            let y = serde_yaml_ng::to_string(&v).unwrap();
            if let Ok(got) = fast_docs(y.as_bytes()) {
                prop_assert_eq!(got, serde_docs(&y).unwrap(), "{}", y);
            }
        }
    }
}
