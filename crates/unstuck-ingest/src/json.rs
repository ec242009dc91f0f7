//! The bundle's JSON reader: a serde `Deserializer` over a byte slice, built for kubectl's indented
//! dumps (runs of indentation skipped eight bytes at a time, strings scanned eight bytes at a time,
//! values the model does not keep skipped without building anything).
//!
//! It accepts nothing serde_json refuses and reads everything it accepts to the same values: whatever
//! it does not handle exactly like serde_json — invalid UTF-8 anywhere in the input (checked inside
//! strings as they are scanned, kept or skipped; outside them only ASCII is grammar), numbers with a
//! fraction or an exponent, `-0`, integers beyond 64 bits, lone surrogates in kept strings, nesting
//! deeper than [`MAX_DEPTH`], any syntax or type error — it refuses, and the caller then asks
//! serde_json, whose answer (objects or error message with line and column) is final. The unit tests
//! below and the `dump_list` fuzz target check that contract.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

/// Why the fast reader stopped; never shown to a user (serde_json's error is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("input not read by the fast JSON reader")
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }
}

type R<T> = Result<T, Refused>;

/// Nesting deeper than this is refused (serde_json's own limit is 128).
pub const MAX_DEPTH: u32 = 100;
// `skip_value` keeps the open containers' kinds as bits of a u128.
const _: () = assert!(MAX_DEPTH < 128);

/// Read one JSON document into `T`, or refuse (see the module documentation).
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Refused> {
    let mut r = Reader { bytes, i: 0, depth: 0, scratch: String::new() };
    let v = T::deserialize(&mut r)?;
    match r.peek_non_ws() {
        None => Ok(v),
        Some(_) => Err(Refused),
    }
}

struct Reader<'de> {
    /// The input, not known to be UTF-8: every string's bytes are checked as they are scanned
    /// (`plain_run`), and only checked bytes are read as `str` (`Reader::str`).
    bytes: &'de [u8],
    i: usize,
    depth: u32,
    scratch: String,
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bytes of `x` that end or interrupt a plain string run: `"`, `\`, a control character (< 0x20) or a
/// byte beyond ASCII (checked as UTF-8 by the caller).
/// Only the lowest flagged byte is exact (borrows may flag bytes above it), which is all we use.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn specials(x: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    zero(x ^ (ONES * u64::from(b'"')))
        | zero(x ^ (ONES * u64::from(b'\\')))
        | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS)
        | (x & HIGHS)
}

/// The length of the UTF-8 sequence `b` starts with (its first byte not ASCII), or refused when it is
/// not one (overlong, a surrogate, beyond U+10FFFF, cut short).
#[cold]
fn utf8_char(b: &[u8]) -> R<usize> {
    let len = match b.first() {
        Some(0xC2..=0xDF) => 2,
        Some(0xE0..=0xEF) => 3,
        Some(0xF0..=0xF4) => 4,
        _ => return Err(Refused),
    };
    let seq = b.get(..len).ok_or(Refused)?;
    std::str::from_utf8(seq).map_err(|_| Refused)?;
    Ok(len)
}

#[inline(always)]
fn hex4(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b.get(..4)? {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// The reader's two byte loops, a block at a time: SSE2 (part of every x86-64) sixteen bytes a step,
/// elsewhere eight bytes in a u64. Both return where the run ends, or the start of the last partial
/// block (the caller finishes byte by byte).
mod simd {
    #[cfg(not(target_arch = "x86_64"))]
    use super::{specials, ONES};

    /// The first byte at or after `i` that is not a space, or where fewer than a block remain.
    #[inline(always)]
    pub(super) fn spaces_end(b: &[u8], mut i: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            while i + 16 <= b.len() {
                // SAFETY: SSE2 is part of x86-64; the 16 bytes at `i` are in bounds (checked above).
                let m = unsafe {
                    let v = _mm_loadu_si128(b.as_ptr().add(i).cast());
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u32
                };
                if m != 0xFFFF {
                    return i + m.trailing_ones() as usize;
                }
                i += 16;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        while let Some(chunk) = b.get(i..i + 8) {
            let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default()) ^ (ONES * u64::from(b' '));
            if x != 0 {
                return i + (x.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        // Fewer than a block left: byte by byte.
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        i
    }

    /// The first `"`, `\`, control character or byte beyond ASCII at or after `i`, or where fewer than a
    /// block remain.
    #[inline(always)]
    pub(super) fn plain_end(b: &[u8], mut i: usize) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            while i + 16 <= b.len() {
                // SAFETY: as in `spaces_end`.
                let m = unsafe {
                    let v = _mm_loadu_si128(b.as_ptr().add(i).cast());
                    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                    let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                    // Unsigned `v <= 0x1f`: max(v, 0x1f) == 0x1f.
                    let lim = _mm_set1_epi8(0x1f);
                    let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, lim), lim);
                    // Or'ed with `v` itself: a byte beyond ASCII (high bit set) ends the run too.
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), _mm_or_si128(ctrl, v))) as u32
                };
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        while let Some(chunk) = b.get(i..i + 8) {
            let m = specials(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
            if m != 0 {
                return i + (m.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        i
    }
}

impl<'de> Reader<'de> {
    #[inline(always)]
    fn bytes(&self) -> &'de [u8] {
        self.bytes
    }

    /// String content from `start` to the cursor, every byte of which `plain_run` passed.
    #[inline(always)]
    fn str(&self, start: usize) -> &'de str {
        let run = &self.bytes[start..self.i];
        debug_assert!(std::str::from_utf8(run).is_ok());
        // SAFETY: `plain_run` advances only over ASCII bytes and whole UTF-8 sequences it checked
        // (`utf8_char`), and every caller's run from `start` was scanned by it alone.
        unsafe { std::str::from_utf8_unchecked(run) }
    }

    /// The next byte that is not JSON whitespace, not consumed; `None` at the end of input.
    #[inline(always)]
    fn peek_non_ws(&mut self) -> Option<u8> {
        let b = self.bytes();
        loop {
            let c = *b.get(self.i)?;
            match c {
                b' ' | b'\r' | b'\t' => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    // Indentation: a block of spaces at a time, to the first byte that is not one.
                    self.i = simd::spaces_end(b, self.i);
                }
                _ => return Some(c),
            }
        }
    }

    #[inline(always)]
    fn next_non_ws(&mut self) -> R<u8> {
        self.peek_non_ws().ok_or(Refused)
    }

    #[inline(always)]
    fn eat(&mut self, c: u8) -> R<()> {
        if self.next_non_ws()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(Refused)
        }
    }

    #[inline(always)]
    fn literal(&mut self, word: &[u8]) -> R<()> {
        if self.bytes().get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Refused)
        }
    }

    /// Advance over plain string bytes (anything but `"`, `\` and control characters), checking that
    /// those beyond ASCII are UTF-8.
    #[inline(always)]
    fn plain_run(&mut self) -> R<()> {
        let b = self.bytes();
        let mut i = self.i;
        loop {
            i = simd::plain_end(b, i);
            match b.get(i) {
                Some(&c) if c >= 0x80 => i += utf8_char(&b[i..])?,
                Some(&c) if c == b'"' || c == b'\\' || c < 0x20 => break,
                Some(_) => i += 1,
                None => break,
            }
        }
        self.i = i;
        Ok(())
    }

    /// A string whose opening quote was consumed: borrowed from the input when it has no escapes,
    /// else decoded into the scratch buffer (`None` is returned then; read `self.scratch`).
    #[inline(always)]
    fn string(&mut self) -> R<Option<&'de str>> {
        let start = self.i;
        self.plain_run()?;
        match self.bytes().get(self.i) {
            Some(b'"') => {
                let s = self.str(start);
                self.i += 1;
                Ok(Some(s))
            }
            Some(b'\\') => {
                self.scratch.clear();
                self.scratch.push_str(self.str(start));
                self.escaped_rest()?;
                Ok(None)
            }
            _ => Err(Refused),
        }
    }

    /// The rest of a string from a backslash on, decoded into `scratch`.
    fn escaped_rest(&mut self) -> R<()> {
        loop {
            let b = self.bytes();
            match b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    let e = *b.get(self.i + 1).ok_or(Refused)?;
                    self.i += 2;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(Refused),
                    };
                    self.scratch.push(c);
                }
                Some(_) => {
                    let start = self.i;
                    self.plain_run()?;
                    if self.i == start {
                        return Err(Refused); // a control character
                    }
                    self.scratch.push_str(self.str(start));
                }
                None => return Err(Refused),
            }
        }
    }

    /// `XXXX` after `\u` (a surrogate pair as two escapes); lone surrogates are refused.
    fn unicode_escape(&mut self) -> R<char> {
        let b = self.bytes();
        let hi = hex4(b.get(self.i..).ok_or(Refused)?).ok_or(Refused)?;
        self.i += 4;
        let code = match hi {
            0xD800..=0xDBFF => {
                if b.get(self.i..self.i + 2) != Some(b"\\u") {
                    return Err(Refused);
                }
                let lo = hex4(b.get(self.i + 2..).ok_or(Refused)?).ok_or(Refused)?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return Err(Refused);
                }
                self.i += 6;
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(Refused),
            c => c,
        };
        char::from_u32(code).ok_or(Refused)
    }

    /// Skip a string whose opening quote was consumed, checking it as serde_json does when it ignores
    /// one (escapes well formed, no control characters).
    fn skip_string(&mut self) -> R<()> {
        loop {
            self.plain_run()?;
            let b = self.bytes();
            match b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    match b.get(self.i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 2,
                        Some(b'u') => {
                            hex4(b.get(self.i + 2..).ok_or(Refused)?).ok_or(Refused)?;
                            self.i += 6;
                        }
                        _ => return Err(Refused),
                    };
                }
                _ => return Err(Refused),
            }
        }
    }

    #[inline(always)]
    fn digits(&mut self) -> usize {
        let b = self.bytes();
        let start = self.i;
        while b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    /// Skip a number, checking the JSON grammar.
    fn skip_number(&mut self) -> R<()> {
        let b = self.bytes();
        if b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match b.get(self.i) {
            Some(b'0') => {
                self.i += 1;
                if b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    return Err(Refused);
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Refused),
        }
        if b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Refused);
            }
        }
        if matches!(b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Refused);
            }
        }
        Ok(())
    }

    /// An integer, handed to the visitor as serde_json does (`visit_u64` unless negative). Numbers
    /// serde_json would read as floats are refused.
    fn integer<V: Visitor<'de>>(&mut self, v: V) -> R<V::Value> {
        let b = self.bytes();
        let neg = b.get(self.i) == Some(&b'-');
        if neg {
            self.i += 1;
        }
        let mut n: u64 = match b.get(self.i) {
            Some(b'0') => {
                self.i += 1;
                0
            }
            Some(&c @ b'1'..=b'9') => {
                self.i += 1;
                u64::from(c - b'0')
            }
            _ => return Err(Refused),
        };
        if n > 0 {
            while let Some(&c) = b.get(self.i).filter(|c| c.is_ascii_digit()) {
                n = n.checked_mul(10).and_then(|n| n.checked_add(u64::from(c - b'0'))).ok_or(Refused)?;
                self.i += 1;
            }
        }
        if matches!(b.get(self.i), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
            return Err(Refused);
        }
        if !neg {
            return v.visit_u64(n);
        }
        // serde_json reads `-0` and anything below i64::MIN as floats.
        match n {
            0 => Err(Refused),
            n if n <= 1 << 63 => v.visit_i64((n as i64).wrapping_neg()),
            _ => Err(Refused),
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Refused);
        }
        Ok(())
    }

    /// Skip any value, checking it the way serde_json checks a value it ignores: one loop over its
    /// tokens, the open containers kept as bits (set: an object), without recursion.
    fn skip_value(&mut self) -> R<()> {
        let base = self.depth;
        let mut objects: u128 = 0;
        loop {
            // A value.
            match self.next_non_ws()? {
                b'"' => {
                    self.i += 1;
                    self.skip_string()?;
                }
                c @ (b'{' | b'[') => {
                    self.i += 1;
                    self.enter()?;
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.next_non_ws()? == close {
                        self.i += 1;
                        self.depth -= 1;
                    } else {
                        // At most MAX_DEPTH (< 128) levels are open: `enter` refuses deeper.
                        let bit = 1u128 << (self.depth - base - 1);
                        if c == b'{' {
                            objects |= bit;
                            self.member_key()?;
                        } else {
                            objects &= !bit;
                        }
                        continue;
                    }
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.skip_number()?,
                _ => return Err(Refused),
            }
            // After a value: closes, until a separator before the next value or the skipped value's end.
            loop {
                if self.depth == base {
                    return Ok(());
                }
                let object = objects >> (self.depth - base - 1) & 1 == 1;
                match self.next_non_ws()? {
                    b',' => {
                        self.i += 1;
                        if object {
                            self.member_key()?;
                        }
                        break;
                    }
                    b'}' if object => {
                        self.i += 1;
                        self.depth -= 1;
                    }
                    b']' if !object => {
                        self.i += 1;
                        self.depth -= 1;
                    }
                    _ => return Err(Refused),
                }
            }
        }
    }

    /// A skipped member's key and colon.
    #[inline(always)]
    fn member_key(&mut self) -> R<()> {
        self.eat(b'"')?;
        self.skip_string()?;
        self.eat(b':')
    }

    #[inline(always)]
    fn visit_string<V: Visitor<'de>>(&mut self, v: V) -> R<V::Value> {
        match self.string()? {
            Some(s) => v.visit_borrowed_str(s),
            None => v.visit_str(&self.scratch),
        }
    }

    fn map<V: Visitor<'de>>(&mut self, v: V) -> R<V::Value> {
        self.i += 1;
        self.enter()?;
        let out = v.visit_map(Members { r: self, first: true })?;
        self.eat(b'}')?;
        self.depth -= 1;
        Ok(out)
    }

    fn seq<V: Visitor<'de>>(&mut self, v: V) -> R<V::Value> {
        self.i += 1;
        self.enter()?;
        let out = v.visit_seq(Members { r: self, first: true })?;
        self.eat(b']')?;
        self.depth -= 1;
        Ok(out)
    }
}

macro_rules! forward_numbers {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            self.deserialize_i64(v)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.next_non_ws()? {
            b'n' => {
                self.literal(b"null")?;
                v.visit_unit()
            }
            b't' => {
                self.literal(b"true")?;
                v.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                v.visit_bool(false)
            }
            b'-' | b'0'..=b'9' => self.integer(v),
            b'"' => {
                self.i += 1;
                self.visit_string(v)
            }
            b'[' => self.seq(v),
            b'{' => self.map(v),
            _ => Err(Refused),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.next_non_ws()? {
            b't' => {
                self.literal(b"true")?;
                v.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                v.visit_bool(false)
            }
            _ => Err(Refused),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.next_non_ws()? {
            b'-' | b'0'..=b'9' => self.integer(v),
            _ => Err(Refused),
        }
    }

    // Every number is read as serde_json reads it for any numeric type: `visit_u64` or `visit_i64`.
    forward_numbers!(deserialize_i8 deserialize_i16 deserialize_i32 deserialize_u8 deserialize_u16
        deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64);

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.eat(b'"')?;
        self.visit_string(v)
    }
    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.deserialize_str(v)
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.deserialize_str(v)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.deserialize_str(v)
    }

    /// serde_json hands over the raw bytes of a string; not needed by the model, so refused.
    fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        Err(Refused)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        Err(Refused)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        if self.next_non_ws()? == b'n' {
            self.literal(b"null")?;
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.next_non_ws()?;
        self.literal(b"null")?;
        v.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> R<V::Value> {
        self.deserialize_unit(v)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> R<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.next_non_ws()? {
            b'[' => self.seq(v),
            _ => Err(Refused),
        }
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> R<V::Value> {
        self.deserialize_seq(v)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, v: V) -> R<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.next_non_ws()? {
            b'{' => self.map(v),
            _ => Err(Refused),
        }
    }
    /// A struct from an object (serde_json also reads one from an array; refused here).
    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], v: V) -> R<V::Value> {
        self.deserialize_map(v)
    }

    /// Unit variants written as strings; the `{"Variant": value}` form is refused.
    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], v: V) -> R<V::Value> {
        self.eat(b'"')?;
        match self.string()? {
            Some(s) => v.visit_enum(de::value::BorrowedStrDeserializer::new(s)),
            None => v.visit_enum(de::value::StringDeserializer::new(std::mem::take(&mut self.scratch))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.skip_value()?;
        v.visit_unit()
    }
}

/// The members of an object or array being read (`first` until one has been).
struct Members<'a, 'de> {
    r: &'a mut Reader<'de>,
    first: bool,
}

impl Members<'_, '_> {
    /// Past the separator to the next member's first byte, not consumed; `None` at `close`.
    #[inline]
    fn next(&mut self, close: u8) -> R<Option<u8>> {
        let mut c = self.r.next_non_ws()?;
        if c == close {
            return Ok(None);
        }
        if !std::mem::take(&mut self.first) {
            if c != b',' {
                return Err(Refused);
            }
            self.r.i += 1;
            c = self.r.next_non_ws()?;
            if c == close {
                return Err(Refused); // a trailing comma
            }
        }
        Ok(Some(c))
    }
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Refused;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        match self.next(b'}')? {
            None => Ok(None),
            Some(b'"') => {
                self.r.i += 1;
                let k = seed.deserialize(Key { r: &mut *self.r })?;
                self.r.eat(b':')?;
                Ok(Some(k))
            }
            Some(_) => Err(Refused),
        }
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<S::Value> {
        seed.deserialize(&mut *self.r)
    }
}

impl<'de> de::SeqAccess<'de> for Members<'_, 'de> {
    type Error = Refused;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        match self.next(b']')? {
            None => Ok(None),
            Some(_) => seed.deserialize(&mut *self.r).map(Some),
        }
    }
}

/// An object key (its opening quote consumed). Keys are strings for every type; serde_json also
/// parses keys into numbers and booleans, which is refused here.
struct Key<'a, 'de> {
    r: &'a mut Reader<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Refused;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.r.visit_string(v)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    /// The contract: refuse, or read exactly what serde_json reads.
    fn check<T: DeserializeOwned + PartialEq + fmt::Debug>(json: &str) -> bool {
        let ours = from_slice::<T>(json.as_bytes());
        let reference = serde_json::from_str::<T>(json);
        match (&ours, &reference) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{json}"),
            (Ok(a), Err(e)) => panic!("accepted {json:?} as {a:?}; serde_json refuses: {e}"),
            (Err(_), _) => {}
        }
        ours.is_ok()
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct S {
        #[serde(default)]
        name: String,
        #[serde(default)]
        n: i64,
        #[serde(default)]
        u: Option<u32>,
        #[serde(default)]
        flag: bool,
        #[serde(default)]
        list: Vec<String>,
        #[serde(default)]
        map: BTreeMap<String, i64>,
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for json in [
            r#"{}"#,
            "{\n    \"name\": \"web-0\",\n        \"n\": -42, \"flag\": true}",
            r#"{"name":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00","n":0}"#,
            r#"{"list":["x","y"],"map":{"a":1,"b":-9223372036854775808},"u":null}"#,
            r#"{"skipped":{"a":[1,2.5e-3,-0.0,true,false,null,"\ud800",{"b":[]}]},"name":"é"}"#,
            "  {\"n\": 9223372036854775807}\r\n\t ",
            r#"{"skipped":[{"a":[{},[],[[]]]},{"b":{"c":[1,{"d":null}],"e":{}}},"x",[{"f":[true]}]],"n":3}"#,
            "{\"skipped\" : { \"a\" :\n  [ 1 ,\n 2 ] , \"b\" : { } } , \"name\" : \"z\" }",
            r#"{"u": 7}"#,
        ] {
            assert!(check::<S>(json), "refused {json:?}");
        }
        assert!(check::<serde_json::Value>(r#"{"a":[1,-2,"x",null,true,{}]}"#));
    }

    #[test]
    fn refuses_what_serde_json_refuses_or_reads_differently() {
        for json in [
            "",
            "{",
            r#"{"n":01}"#,
            r#"{"n":1.5}"#,
            r#"{"n":-0}"#,
            r#"{"n":1e3}"#,
            r#"{"n":99999999999999999999}"#,
            r#"{"n":-9223372036854775809}"#,
            r#"{"name":"\ud800"}"#,
            r#"{"name":"\udc00x"}"#,
            r#"{"name":"\x"}"#,
            "{\"name\":\"a\u{1}b\"}",
            r#"{"list":["a",]}"#,
            r#"{"name":"a",}"#,
            r#"{"name":"a"} x"#,
            r#"{"name":"a" "n":1}"#,
            r#"{"skipped":[1,]}"#,
            r#"{"skipped":{"a" 1}}"#,
            r#"{"skipped":tru}"#,
            r#"{"skipped":[1}}"#,
            r#"{"skipped":{"a":1]}"#,
            r#"{"skipped":{"a":[1,{"b":2]}]}}"#,
            r#"{"skipped":{"a":1,}}"#,
            r#"{"skipped":{,"a":1}}"#,
            r#"{"skipped":[,1]}"#,
            r#"{"skipped":{"a":1"b":2}}"#,
            r#"{"skipped":{1:2}}"#,
            r#"{"skipped":[1 2]}"#,
            r#"{"skipped":{"a":[[]]"#,
            r#"{"skipped":-}"#,
            r#"{"skipped":1.}"#,
            r#"{"skipped":1e}"#,
            r#"{"skipped":"\u12"}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"flag":"true"}"#,
            r#"{"u":-1}"#,
            r#"{"u":4294967296}"#,
            r#"["a",1,false,0,[],{},"#,
        ] {
            assert!(!check::<S>(json), "accepted {json:?}");
        }
        // Invalid UTF-8 anywhere is left to serde_json (which accepts it inside ignored strings).
        assert_eq!(from_slice::<S>(b"{\"skipped\":\"\xff\"}"), Err(Refused));
        // Deep nesting is refused before the stack is at risk.
        let deep = format!("{{\"skipped\":{}{}}}", "[".repeat(5000), "]".repeat(5000));
        assert!(!check::<S>(&deep));
        let ok = format!("{{\"skipped\":{}{}}}", "[".repeat(50), "]".repeat(50));
        assert!(check::<S>(&ok));
    }

    #[test]
    fn specials_found_at_every_offset_of_a_block() {
        // An escape, a control character (refused), DEL and non-ASCII (both plain) at each offset of
        // strings longer than two blocks, kept and skipped; runs of spaces of every length before them.
        for len in 0..40 {
            for at in 0..=len {
                for (insert, plain) in
                    [("\\\"", true), ("\\\\", true), ("\u{1f}", false), ("\u{7f}", true), ("é", true)]
                {
                    let s: String = format!("{}{insert}{}", "x".repeat(at), "y".repeat(len - at));
                    let pad = " ".repeat(len);
                    let kept = format!("{{\n{pad}\"name\": \"{s}\"}}");
                    let skipped = format!("{{\n{pad}\"skipped\": [\"{s}\"], \"n\": 1}}");
                    for json in [kept, skipped] {
                        assert_eq!(check::<S>(&json), plain, "{json:?}");
                        assert_eq!(serde_json::from_str::<S>(&json).is_ok(), plain, "{json:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_checked_in_every_string_at_every_offset() {
        // Valid sequences of each length, and sequences that are not UTF-8 (a lone continuation byte,
        // overlong forms, a surrogate, beyond U+10FFFF, a sequence cut by the closing quote, bytes no
        // UTF-8 has), at each offset of strings longer than two blocks, kept and skipped.
        let valid: [&[u8]; 4] = [b"\xc3\xa9", b"\xe2\x80\x99", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf"];
        let invalid: [&[u8]; 9] = [
            b"\x80",
            b"\xc0\x80",
            b"\xc1\xbf",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x80",
            b"\xf8\x88\x80\x80\x80",
            b"\xff",
        ];
        for len in 0..40 {
            for at in 0..=len {
                for (insert, ok) in valid.iter().map(|v| (v, true)).chain(invalid.iter().map(|v| (v, false))) {
                    let mut s = b"x".repeat(at);
                    s.extend_from_slice(insert);
                    s.extend(b"y".repeat(len - at));
                    let kept = [&b"{\"name\": \""[..], &s, b"\"}"].concat();
                    let skipped = [&b"{\"skipped\": [\""[..], &s, b"\"], \"n\": 1}"].concat();
                    let key = [&b"{\"map\": {\""[..], &s, b"\": 1}}"].concat();
                    for json in [kept, skipped, key] {
                        assert_eq!(from_slice::<S>(&json).is_ok(), ok, "{:?}", String::from_utf8_lossy(&json));
                        if ok {
                            assert!(check::<S>(std::str::from_utf8(&json).unwrap()));
                        }
                    }
                }
            }
        }
        // Outside strings, a byte beyond ASCII is a syntax error.
        assert_eq!(from_slice::<S>(b"{\"n\": 1\xc3\xa9}"), Err(Refused));
        assert_eq!(from_slice::<S>(b"\xef\xbb\xbf{}"), Err(Refused));
    }

    #[test]
    fn long_strings_and_indentation_cross_chunk_boundaries() {
        for len in 0..40 {
            let s: String = "abcdefghé".chars().cycle().take(len).collect();
            for indent in 0..20 {
                let pad = " ".repeat(indent);
                let json =
                    format!("{{\n{pad}\"name\":\n{pad}\"{s}\",\n{pad}\"list\": [\n{pad}\"{s}\\n{s}\"\n{pad}]\n}}");
                assert!(check::<S>(&json), "refused {json:?}");
            }
        }
    }
}
