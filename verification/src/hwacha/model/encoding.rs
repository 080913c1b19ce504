//! The published Hwacha encodings (riscv-opcodes line format), embedded and parsed when a
//! model is built, so the decoder's bit patterns come from the files and are never copied
//! by hand.
//!
//! A line is `name token token ...`: `hi..lo=value` or `bit=value` fixes bits, a bare word
//! names an operand field. The files never say where a named field lives; the positions
//! in [`Field::range`] were read off how the fields are used across the files (thesis
//! Figure 7.3: `rd` 23..16, `rs1` 31..24, `rs2` 40..33, `rs3` 48..41, predicate
//! 15..12, `n` at 32, the d/1/2/3 operand-kind flags at 63..60, immediates left-aligned)
//! and they agree with the register layout of the Hwacha ISA simulator. Parsing checks
//! that every line's fields and fixed ranges tile the instruction exactly (no bit twice,
//! none missing), which pins each position down: a wrong one would overlap a fixed range
//! on some line.

/// Control-thread (RoCC, 32-bit) instructions.
pub const CONTROL: &str = include_str!("../opcodes/opcodes-hwacha");
/// Worker-thread (64-bit) instructions.
pub const WORKER: &str = include_str!("../opcodes/opcodes-hwacha-ut");
/// Worker-thread pseudo-instructions (aliases of `WORKER` encodings, `@`-prefixed).
pub const WORKER_PSEUDO: &str = include_str!("../opcodes/opcodes-hwacha-ut-pseudo");

/// A named operand field of an encoding line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    // Worker thread.
    Vrd,
    Vrs1,
    Vrs2,
    Vrs3,
    Vprd,
    Vprs1,
    Vprs2,
    Vprs3,
    Vars1,
    Vars2,
    Vpred,
    Vn,
    Vd,
    Vs1,
    Vs2,
    Vs3,
    Vimm,
    Vcimm,
    Vcond,
    Vshamt,
    Vshamtw,
    Vseglen,
    Vaqrl,
    Vrm,
    Vpfunc,
    Vprev,
    Vsucc,
    // Control thread (RoCC format).
    Rd,
    Rs1,
    Rs2,
    Imm12,
    Imm12hi,
    Imm12lo,
    Svrdhi,
    Svrdlo,
    Svard,
}

impl Field {
    /// The field a bare word on an encoding line names.
    pub fn from_name(name: &str) -> Option<Field> {
        use Field::*;
        Some(match name {
            "vrd" => Vrd,
            "vrs1" => Vrs1,
            "vrs2" => Vrs2,
            "vrs3" => Vrs3,
            "vprd" => Vprd,
            "vprs1" => Vprs1,
            "vprs2" => Vprs2,
            "vprs3" => Vprs3,
            "vars1" => Vars1,
            "vars2" => Vars2,
            "vpred" => Vpred,
            "vn" => Vn,
            "vd" => Vd,
            "vs1" => Vs1,
            "vs2" => Vs2,
            "vs3" => Vs3,
            "vimm" => Vimm,
            "vcimm" => Vcimm,
            "vcond" => Vcond,
            "vshamt" => Vshamt,
            "vshamtw" => Vshamtw,
            "vseglen" => Vseglen,
            "vaqrl" => Vaqrl,
            "vrm" => Vrm,
            "vpfunc" => Vpfunc,
            "vprev" => Vprev,
            "vsucc" => Vsucc,
            "rd" => Rd,
            "rs1" => Rs1,
            "rs2" => Rs2,
            "imm12" => Imm12,
            "imm12hi" => Imm12hi,
            "imm12lo" => Imm12lo,
            "svrdhi" => Svrdhi,
            "svrdlo" => Svrdlo,
            "svard" => Svard,
            _ => return None,
        })
    }

    /// Bit range `(hi, lo)` of the field.
    pub const fn range(self) -> (u32, u32) {
        use Field::*;
        match self {
            Vrd => (23, 16),
            Vrs1 => (31, 24),
            Vrs2 => (40, 33),
            Vrs3 => (48, 41),
            // Predicate registers sit in the low four bits of the register fields.
            Vprd => (19, 16),
            Vprs1 => (27, 24),
            Vprs2 => (36, 33),
            Vprs3 => (44, 41),
            // Address registers sit in the low five bits of the register fields.
            Vars1 => (28, 24),
            Vars2 => (37, 33),
            Vpred => (15, 12),
            Vn => (32, 32),
            Vd => (63, 63),
            Vs1 => (62, 62),
            Vs2 => (61, 61),
            Vs3 => (60, 60),
            Vimm => (63, 32),
            // 29-bit jump offset in units of 8 bytes above the 2-bit condition.
            Vcimm => (63, 35),
            Vcond => (34, 33),
            Vshamt => (37, 32),
            Vshamtw => (36, 32),
            Vseglen => (47, 45),
            Vaqrl => (54, 53),
            Vrm => (52, 50),
            Vpfunc => (57, 50),
            // As RISC-V's fence: predecessor set above successor set.
            Vprev => (23, 20),
            Vsucc => (19, 16),
            Rd => (11, 7),
            Rs1 => (19, 15),
            Rs2 => (24, 20),
            Imm12 => (31, 20),
            Imm12hi => (31, 25),
            Imm12lo => (11, 7),
            Svrdhi => (22, 20),
            Svrdlo => (11, 7),
            Svard => (11, 7),
        }
    }

    /// Mask of the field's bits in place.
    pub const fn mask(self) -> u64 {
        let (hi, lo) = self.range();
        (u64::MAX >> (63 - hi + lo)) << lo
    }

    /// The field's value, zero-extended.
    pub const fn get(self, bits: u64) -> u64 {
        let (_, lo) = self.range();
        (bits & self.mask()) >> lo
    }

    /// The field's value, sign-extended from its top bit.
    pub const fn get_signed(self, bits: u64) -> i64 {
        let (hi, lo) = self.range();
        ((bits << (63 - hi)) as i64) >> (63 - hi + lo)
    }

    /// The field's value placed in an instruction word (bits above the field dropped).
    pub const fn put(self, value: u64) -> u64 {
        let (_, lo) = self.range();
        (value << lo) & self.mask()
    }
}

/// One instruction of an encoding file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub name: &'static str,
    /// Bits fixed by the encoding.
    pub mask: u64,
    /// Their values (`bits & mask == value` identifies the instruction).
    pub value: u64,
    /// Operand fields in the order the line lists them.
    pub fields: Vec<Field>,
}

impl Pattern {
    pub fn matches(&self, bits: u64) -> bool {
        bits & self.mask == self.value
    }

    pub fn has(&self, field: Field) -> bool {
        self.fields.contains(&field)
    }
}

/// A malformed encoding line (the embedded files are checked by the tests, so this only
/// fires if they are edited badly).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("encoding file line {line}: {message}")]
pub struct EncodingError {
    pub line: usize,
    pub message: String,
}

/// Parses the instructions of an encoding file of `width`-bit instructions. Comment lines
/// and `@`-prefixed pseudo-instructions (aliases of other lines) are skipped unless
/// `pseudo` is set, in which case only the `@` lines are returned.
pub fn parse(text: &'static str, width: u32, pseudo: bool) -> Result<Vec<Pattern>, EncodingError> {
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        let mut tokens = content.split_whitespace();
        let Some(first) = tokens.next() else { continue };
        let (name, is_pseudo) = match first.strip_prefix('@') {
            Some(n) => (n, true),
            None => (first, false),
        };
        if is_pseudo != pseudo {
            continue;
        }
        let err = |message: String| EncodingError { line, message };
        let mut pat = Pattern {
            name,
            mask: 0,
            value: 0,
            fields: Vec::new(),
        };
        let mut covered = 0u64;
        for tok in tokens {
            let bits = match tok.split_once('=') {
                Some((range, value)) => {
                    let (hi, lo) =
                        parse_range(range).ok_or_else(|| err(format!("bad range {range:?}")))?;
                    let value =
                        parse_value(value).ok_or_else(|| err(format!("bad value in {tok:?}")))?;
                    let m = (u64::MAX >> (63 - hi + lo)) << lo;
                    if hi >= width || value > (m >> lo) {
                        return Err(err(format!("{tok:?} does not fit its range")));
                    }
                    pat.mask |= m;
                    pat.value |= value << lo;
                    m
                }
                None => {
                    let f = Field::from_name(tok)
                        .ok_or_else(|| err(format!("unknown field {tok:?}")))?;
                    pat.fields.push(f);
                    f.mask()
                }
            };
            if covered & bits != 0 {
                return Err(err(format!("{tok:?} overlaps earlier bits of {name}")));
            }
            covered |= bits;
        }
        let full = u64::MAX >> (64 - width);
        if covered != full {
            return Err(err(format!(
                "{name} leaves bits {:#x} undefined",
                full & !covered
            )));
        }
        out.push(pat);
    }
    Ok(out)
}

/// `hi..lo` or a single bit.
fn parse_range(s: &str) -> Option<(u32, u32)> {
    match s.split_once("..") {
        Some((hi, lo)) => {
            let (hi, lo) = (hi.parse().ok()?, lo.parse().ok()?);
            (hi >= lo && hi < 64).then_some((hi, lo))
        }
        None => {
            let bit = s.parse().ok()?;
            (bit < 64).then_some((bit, bit))
        }
    }
}

/// Decimal or `0x` hexadecimal.
fn parse_value(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}
