//! A fast path for the block YAML that `kubectl get -o yaml`, `oc adm must-gather` and PyYAML print, in one
//! pass over its lines: read straight into the model's types (`from_slice`: the values of keys no field reads
//! are passed over by their indentation, never converted), or converted to JSON text for the
//! readers of loose kubectl output (`to_json_docs`).
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

/// The documents of a YAML stream, each as JSON text; `None` for an empty document.
pub fn to_json_docs(bytes: &[u8]) -> R<Vec<Option<String>>> {
    let src = std::str::from_utf8(bytes).map_err(|_| Unsupported)?;
    let mut docs = Vec::new();
    for_each_doc(src, |lines| {
        docs.push(convert(lines)?);
        Ok(())
    })?;
    Ok(docs)
}

/// Hand each document of `src` to `each` as its lines (an empty one as blank or no lines).
fn for_each_doc<'a>(src: &'a str, mut each: impl FnMut(&[Line<'a>]) -> R<()>) -> R<()> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut seen = false;
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
                each(&lines)?;
                seen = true;
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
    if open || !all_blank(&lines) || !seen {
        each(&lines)?;
    }
    Ok(())
}

fn all_blank(lines: &[Line<'_>]) -> bool {
    lines.iter().all(|l| is_blank_or_comment(l.text))
}

fn is_blank_or_comment(t: &str) -> bool {
    match t.as_bytes().first() {
        None | Some(b'#') => true,
        Some(b' ' | b'\t') => t.trim_start().is_empty() || t.trim_start().starts_with('#'),
        Some(_) => false,
    }
}

fn convert(lines: &[Line<'_>]) -> R<Option<String>> {
    let mut p = Parser { c: Cursor { lines, i: 0 }, out: String::with_capacity(lines.len() * 24), depth: 0 };
    p.c.skip_blank();
    if p.c.i >= lines.len() {
        return Ok(None);
    }
    let indent = lines[p.c.i].indent;
    p.node(indent, None)?;
    p.c.skip_blank();
    if p.c.i < lines.len() {
        return Err(Unsupported);
    }
    Ok(Some(p.out))
}

const MAX_DEPTH: usize = 256;

/// Where a document's reader stands: its lines, and the next one to read. Shared by the JSON converter
/// (`Parser`) and the deserializer (`from_slice`), which read the same subset the same way.
struct Cursor<'a, 'l> {
    lines: &'l [Line<'a>],
    i: usize,
}

/// What a key or a sequence dash holds.
enum Slot<'a> {
    /// A block collection at `indent` whose first entry is line `i`, or `first` (the rest of the parent's
    /// dash line, `- key: value`) when given.
    Block { indent: usize, first: Option<&'a str> },
    /// A scalar or empty flow collection starting on line `i`, its continuation lines deeper than `indent`.
    Inline { indent: usize, v: &'a str },
    /// Nothing (`key:` or `-` with no value).
    Null,
    /// A scalar already read (the deserializer's `Option` check).
    Read(Scalar<'a>),
}

/// A scalar (or empty flow collection), read.
enum Scalar<'a> {
    Null,
    Bool(bool),
    /// Written the way JSON writes integers.
    Num(&'a str),
    Str(std::borrow::Cow<'a, str>),
    EmptyMap,
    EmptySeq,
}

impl<'a> Cursor<'a, '_> {
    fn skip_blank(&mut self) {
        while self.i < self.lines.len() && is_blank_or_comment(self.lines[self.i].text) {
            self.i += 1;
        }
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

    /// The value of a key at `indent` whose line continues with `rest` (after the colon).
    fn key_value(&mut self, indent: usize, rest: &'a str) -> Slot<'a> {
        let rest = rest.trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Slot::Inline { indent, v: rest };
        }
        self.i += 1;
        self.skip_blank();
        match self.lines.get(self.i) {
            Some(l) if l.indent > indent => Slot::Block { indent: l.indent, first: None },
            // A sequence may sit at its key's own indentation.
            Some(l) if l.indent == indent && is_dash(l.text) => Slot::Block { indent, first: None },
            _ => Slot::Null,
        }
    }

    /// The item of a sequence entry at `indent` whose line is `text` (starting with its dash).
    fn item_value(&mut self, indent: usize, text: &'a str) -> R<Slot<'a>> {
        let rest = text.get(1..).unwrap_or("");
        let pad = rest.bytes().take_while(|&b| b == b' ').count();
        let item = rest[pad..].trim_end();
        if item.is_empty() || item.starts_with('#') {
            // The item on the next lines.
            self.i += 1;
            self.skip_blank();
            return Ok(match self.lines.get(self.i) {
                Some(l) if l.indent > indent => Slot::Block { indent: l.indent, first: None },
                _ => Slot::Null,
            });
        }
        if is_dash(item) || split_key(item)?.is_some() {
            // A nested sequence or a mapping starting on the dash's line, at the item's column.
            return Ok(Slot::Block { indent: indent + 1 + pad, first: Some(&rest[pad..]) });
        }
        Ok(Slot::Inline { indent, v: item })
    }

    /// Past a slot without reading it (a value no model field reads): its lines are not checked.
    fn skip_slot(&mut self, slot: &Slot<'a>) {
        match *slot {
            Slot::Null | Slot::Read(_) => {}
            Slot::Inline { indent, .. } => {
                self.i += 1;
                self.skip_while(|l| l.indent > indent);
            }
            Slot::Block { indent, first } => {
                let seq = is_dash(first.unwrap_or_else(|| self.lines[self.i].text));
                if first.is_some() {
                    self.i += 1;
                }
                if seq {
                    self.skip_while(|l| l.indent > indent || (l.indent == indent && is_dash(l.text)));
                } else {
                    self.skip_while(|l| l.indent >= indent);
                }
            }
        }
    }

    fn skip_while(&mut self, keep: impl Fn(&Line<'a>) -> bool) {
        while let Some(l) = self.lines.get(self.i) {
            if !(is_blank_or_comment(l.text) || keep(l)) {
                break;
            }
            self.i += 1;
        }
    }

    /// A scalar (or empty flow collection) starting on line `self.i` after its key or dash; its
    /// continuation lines are indented more than `indent`.
    fn scalar(&mut self, indent: usize, v: &'a str) -> R<Scalar<'a>> {
        match v.as_bytes()[0] {
            b'"' | b'\'' => Ok(Scalar::Str(self.quoted(indent, v)?)),
            b'|' => Ok(Scalar::Str(self.literal(indent, v)?.into())),
            b'{' | b'[' => {
                let s = match strip_comment(v)? {
                    "{}" => Scalar::EmptyMap,
                    "[]" => Scalar::EmptySeq,
                    _ => return Err(Unsupported),
                };
                self.i += 1;
                Ok(s)
            }
            b'&' | b'*' | b'!' | b'>' | b'%' | b'@' | b'`' | b'?' | b',' | b']' | b'}' => Err(Unsupported),
            _ => self.plain(indent, v),
        }
    }

    fn plain(&mut self, indent: usize, v: &'a str) -> R<Scalar<'a>> {
        let first = strip_comment(v)?;
        self.i += 1;
        // Usually the next line is a sibling or a parent's: no continuation.
        match self.lines.get(self.i) {
            Some(l) if l.indent <= indent && !l.text.is_empty() => return plain_scalar(first),
            None => return plain_scalar(first),
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
            return plain_scalar(first);
        }
        if colon_space(first) || space_hash(first).is_some() {
            return Err(Unsupported);
        }
        let mut s = String::from(first);
        fold(&mut s, &more);
        Ok(Scalar::Str(s.into()))
    }

    fn quoted(&mut self, indent: usize, v: &'a str) -> R<std::borrow::Cow<'a, str>> {
        let q = v.as_bytes()[0];
        // The scalar's lines, up to its closing quote.
        let mut parts: Vec<&'a str> = Vec::new();
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
        // One line with nothing to unescape: the text itself.
        if let [p] = parts[..] {
            let plain = if q == b'\'' { !p.contains('\'') } else { !p.contains('\\') };
            if plain {
                return Ok(p.into());
            }
        }
        Ok(if q == b'\'' { single(&parts) } else { double(&parts)? }.into())
    }

    fn literal(&mut self, indent: usize, v: &str) -> R<String> {
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
            return Ok(String::new());
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
        Ok(out)
    }
}

/// `v` is cut at its first ` #` (`strip_comment`).
fn plain_scalar(v: &str) -> R<Scalar<'_>> {
    Ok(match resolve_with(v, true, false)? {
        Plain::Null => Scalar::Null,
        Plain::Bool(b) => Scalar::Bool(b),
        Plain::Number => Scalar::Num(v),
        Plain::Str => Scalar::Str(v.into()),
    })
}

/// The JSON converter.
struct Parser<'a, 'l> {
    c: Cursor<'a, 'l>,
    out: String,
    depth: usize,
}

impl<'a> Parser<'a, '_> {
    /// A block node whose first line is `self.c.i`, at `indent`; `first` is the node's text when it starts
    /// on a line of its own parent (`- key: value`), at column `indent`.
    fn node(&mut self, indent: usize, first: Option<&'a str>) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        let text = match first {
            Some(t) => t,
            None => self.c.lines[self.c.i].text,
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

    fn slot(&mut self, slot: Slot<'a>) -> R<()> {
        match slot {
            Slot::Block { indent, first } => self.node(indent, first),
            Slot::Inline { indent, v } => {
                let s = self.c.scalar(indent, v)?;
                self.scalar(s);
                Ok(())
            }
            Slot::Null => {
                self.out.push_str("null");
                Ok(())
            }
            Slot::Read(s) => {
                self.scalar(s);
                Ok(())
            }
        }
    }

    fn scalar(&mut self, s: Scalar<'_>) {
        match s {
            Scalar::Null => self.out.push_str("null"),
            Scalar::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Scalar::Num(v) => self.out.push_str(v),
            Scalar::Str(v) => push_json_str(&mut self.out, &v),
            Scalar::EmptyMap => self.out.push_str("{}"),
            Scalar::EmptySeq => self.out.push_str("[]"),
        }
    }

    fn sequence(&mut self, indent: usize, mut first: Option<&'a str>) -> R<()> {
        self.out.push('[');
        let mut n = 0;
        // At our indentation, a line that is no entry is the parent's next key (a sequence sits at its key's
        // indentation), or the parent's end.
        while let Some(text) = self.c.next_entry(indent, &mut first, is_dash)? {
            if n > 0 {
                self.out.push(',');
            }
            n += 1;
            let slot = self.c.item_value(indent, text)?;
            self.slot(slot)?;
        }
        self.out.push(']');
        Ok(())
    }

    fn mapping(&mut self, indent: usize, mut first: Option<&'a str>) -> R<()> {
        self.out.push('{');
        let mut n = 0;
        while let Some(text) = self.c.next_entry(indent, &mut first, |_| true)? {
            let Some((key, rest)) = split_key(text)? else { return Err(Unsupported) };
            if n > 0 {
                self.out.push(',');
            }
            n += 1;
            push_json_str(&mut self.out, &key);
            self.out.push(':');
            let slot = self.c.key_value(indent, rest);
            self.slot(slot)?;
        }
        self.out.push('}');
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

/// Read one document straight into `T`, without the JSON text in between: the subset `to_json_docs` accepts,
/// read the same way, except that the values of keys `T` has no field for are passed over by their
/// indentation (serde asks for them as `IgnoredAny`) instead of being converted and checked. Anything else,
/// a value of the wrong type for `T` included, is refused: the caller then reads the document with
/// serde_yaml_ng, which also gives the error message.
pub fn from_slice<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> R<T> {
    let src = std::str::from_utf8(bytes).map_err(|_| Unsupported)?;
    let mut out = None;
    for_each_doc(src, |lines| {
        if out.is_some() || all_blank(lines) {
            return Err(Unsupported);
        }
        let mut c = Cursor { lines, i: 0 };
        c.skip_blank();
        let indent = lines[c.i].indent;
        let mut de = De { c, depth: 0 };
        let v =
            T::deserialize(Node { de: &mut de, slot: Slot::Block { indent, first: None } }).map_err(|_| Unsupported)?;
        de.c.skip_blank();
        if de.c.i < lines.len() {
            return Err(Unsupported);
        }
        out = Some(v);
        Ok(())
    })?;
    out.ok_or(Unsupported)
}

/// The deserializer's error: only that it refused (the caller falls back to serde_yaml_ng).
#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not in the fast YAML subset")
    }
}

impl std::error::Error for Refused {}

impl serde::de::Error for Refused {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Refused
    }
}

impl From<Unsupported> for Refused {
    fn from(_: Unsupported) -> Self {
        Refused
    }
}

struct De<'a, 'l> {
    c: Cursor<'a, 'l>,
    depth: usize,
}

/// One node of the document, to be read as the visitor asks.
struct Node<'d, 'a, 'l> {
    de: &'d mut De<'a, 'l>,
    slot: Slot<'a>,
}

/// A scalar read, handed to the visitor.
fn visit_scalar<'a, V: serde::de::Visitor<'a>>(s: Scalar<'a>, v: V) -> Result<V::Value, Refused> {
    use std::borrow::Cow;
    match s {
        Scalar::Null => v.visit_unit(),
        Scalar::Bool(b) => v.visit_bool(b),
        // As the JSON reader hands them over: `visit_u64` unless negative (`resolve_with` lets through
        // only integers that fit 64 bits).
        Scalar::Num(n) => match n.strip_prefix('-') {
            None => v.visit_u64(n.parse().map_err(|_| Refused)?),
            Some("0") => Err(Refused),
            Some(_) => v.visit_i64(n.parse().map_err(|_| Refused)?),
        },
        Scalar::Str(Cow::Borrowed(s)) => v.visit_borrowed_str(s),
        Scalar::Str(Cow::Owned(s)) => v.visit_string(s),
        Scalar::EmptyMap => v.visit_map(serde::de::value::MapDeserializer::<std::iter::Empty<((), ())>, Refused>::new(
            std::iter::empty(),
        )),
        Scalar::EmptySeq => {
            v.visit_seq(serde::de::value::SeqDeserializer::<std::iter::Empty<()>, Refused>::new(std::iter::empty()))
        }
    }
}

impl<'a> serde::Deserializer<'a> for Node<'_, 'a, '_> {
    type Error = Refused;

    fn deserialize_any<V: serde::de::Visitor<'a>>(self, v: V) -> Result<V::Value, Refused> {
        match self.slot {
            Slot::Null => v.visit_unit(),
            Slot::Read(s) => visit_scalar(s, v),
            Slot::Inline { indent, v: text } => {
                let s = self.de.c.scalar(indent, text)?;
                visit_scalar(s, v)
            }
            Slot::Block { indent, first } => {
                let de = self.de;
                de.depth += 1;
                if de.depth > MAX_DEPTH {
                    return Err(Refused);
                }
                let text = first.unwrap_or_else(|| de.c.lines[de.c.i].text);
                let r = if is_dash(text) {
                    let mut seq = Entries { de: &mut *de, indent, first, done: false, pending: None };
                    let r = v.visit_seq(&mut seq)?;
                    // A visitor that stopped early: the rest is not read here.
                    if !seq.done && seq.de.c.next_entry(indent, &mut seq.first, is_dash)?.is_some() {
                        return Err(Refused);
                    }
                    r
                } else if split_key(text)?.is_some() {
                    let mut map = Entries { de: &mut *de, indent, first, done: false, pending: None };
                    let r = v.visit_map(&mut map)?;
                    if !map.done && map.de.c.next_entry(indent, &mut map.first, |_| true)?.is_some() {
                        return Err(Refused);
                    }
                    r
                } else {
                    return Err(Refused);
                };
                de.depth -= 1;
                Ok(r)
            }
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'a>>(self, v: V) -> Result<V::Value, Refused> {
        match self.slot {
            Slot::Null | Slot::Read(Scalar::Null) => v.visit_none(),
            Slot::Inline { indent, v: text } => match self.de.c.scalar(indent, text)? {
                Scalar::Null => v.visit_none(),
                s => v.visit_some(Node { de: self.de, slot: Slot::Read(s) }),
            },
            _ => v.visit_some(self),
        }
    }

    fn deserialize_ignored_any<V: serde::de::Visitor<'a>>(self, v: V) -> Result<V::Value, Refused> {
        self.de.c.skip_slot(&self.slot);
        v.visit_unit()
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'a>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Refused> {
        v.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct
        seq tuple tuple_struct map struct enum identifier
    }
}

/// A block sequence's or mapping's entries, read one by one.
struct Entries<'d, 'a, 'l> {
    de: &'d mut De<'a, 'l>,
    indent: usize,
    first: Option<&'a str>,
    done: bool,
    /// The mapping value after the key just read (the rest of its line).
    pending: Option<&'a str>,
}

impl<'a> serde::de::SeqAccess<'a> for Entries<'_, 'a, '_> {
    type Error = Refused;

    fn next_element_seed<T: serde::de::DeserializeSeed<'a>>(&mut self, seed: T) -> Result<Option<T::Value>, Refused> {
        let Some(text) = self.de.c.next_entry(self.indent, &mut self.first, is_dash)? else {
            self.done = true;
            return Ok(None);
        };
        let slot = self.de.c.item_value(self.indent, text)?;
        seed.deserialize(Node { de: &mut *self.de, slot }).map(Some)
    }
}

impl<'a> serde::de::MapAccess<'a> for Entries<'_, 'a, '_> {
    type Error = Refused;

    fn next_key_seed<K: serde::de::DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>, Refused> {
        use serde::de::IntoDeserializer;
        use std::borrow::Cow;
        let Some(text) = self.de.c.next_entry(self.indent, &mut self.first, |_| true)? else {
            self.done = true;
            return Ok(None);
        };
        let Some((key, rest)) = split_key(text)? else { return Err(Refused) };
        self.pending = Some(rest);
        match key {
            Cow::Borrowed(k) => seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(k)).map(Some),
            Cow::Owned(k) => seed.deserialize(k.into_deserializer()).map(Some),
        }
    }

    fn next_value_seed<T: serde::de::DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value, Refused> {
        let rest = self.pending.take().ok_or(Refused)?;
        let slot = self.de.c.key_value(self.indent, rest);
        seed.deserialize(Node { de: &mut *self.de, slot })
    }
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
        // Read straight into a value: the same, for one document that is not empty.
        if let [one] = &want[..] {
            if !one.is_null() {
                let direct: Value = from_slice(y.as_bytes()).unwrap_or_else(|_| panic!("from_slice refused:\n{y}"));
                assert_eq!(&direct, one, "from_slice\n{y}");
            }
        }
    }

    #[track_caller]
    fn refused(y: &str) {
        assert_eq!(to_json_docs(y.as_bytes()).err(), Some(Unsupported), "\n{y}");
        assert!(from_slice::<Value>(y.as_bytes()).is_err(), "from_slice accepted\n{y}");
    }

    /// A typed reader: the fields it has are read as serde_yaml_ng reads them, and the values of every other
    /// key, whatever their shape, are passed over without disturbing what follows.
    #[test]
    fn typed_reader_passes_over_unread_values() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Item {
            name: String,
            #[serde(default)]
            tags: Vec<String>,
            #[serde(default)]
            note: Option<String>,
            #[serde(default)]
            count: Option<i64>,
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Doc {
            items: Vec<Item>,
            kind: String,
        }
        let y = r#"apiVersion: v1
items:
- name: a
  seqAtKeyIndent:
  - x
  - y: 1
    z:
    - deep
  tags:
  - t1
  - t2
  mapping:
    inner:
      deeper: v
    list: []
  literal: |
    line one
      indented
    line three
  quoted: "a long
    folded string"
  single: 'it''s'
  plainFolded: a plain value
    that continues
  count: -5
- name: b
  compact:
  - - nested
    - seq
  -
    late: item
  empty:
  note: "x: y"
- managedFields:
  - fieldsV1:
      f:metadata: {}
  name: c
kind: List
metadata:
  resourceVersion: ""
"#;
        let want: Doc = serde_yaml_ng::from_str(y).unwrap();
        let got: Doc = from_slice(y.as_bytes()).unwrap_or_else(|_| panic!("refused"));
        assert_eq!(got, want);
        assert_eq!(got.items.len(), 3);
        assert_eq!(got.items[0].tags, ["t1", "t2"]);
        // A value of the wrong type for a field the reader has is refused (serde_yaml_ng then says why).
        assert!(from_slice::<Doc>(b"items:\n- name: [1]\nkind: List\n").is_err());
        assert!(from_slice::<Doc>(b"items:\n- name: a\n  count: 1.5\nkind: List\n").is_err());
        // Two documents, or none: refused.
        assert!(from_slice::<Value>(b"a: 1\n---\nb: 2\n").is_err());
        assert!(from_slice::<Value>(b"# nothing\n").is_err());
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
        assert_eq!(to_json_docs(b"a: \xff\xfe\n"), Err(Unsupported));
        let long = format!("a: {}\n", "x".repeat(1 << 20));
        same(&long);
        let mut deep = String::new();
        for i in 0..300 {
            deep.push_str(&" ".repeat(i * 2));
            deep.push_str("k:\n");
        }
        assert_eq!(to_json_docs(deep.as_bytes()), Err(Unsupported), "deeper than the limit");
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
                let want = serde_docs(&y).unwrap();
                prop_assert_eq!(&got, &want, "{}", y);
                if let [one] = &want[..] {
                    if !one.is_null() {
                        let direct: Option<Value> = from_slice(y.as_bytes()).ok();
                        prop_assert_eq!(direct.as_ref(), Some(one), "from_slice {}", y);
                    }
                }
            }
        }
    }
}
