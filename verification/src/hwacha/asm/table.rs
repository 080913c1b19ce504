//! The Hwacha instruction table, parsed from the published encoding files (riscv-opcodes
//! line format) embedded at compile time.
//!
//! A line is `name arg arg ... hi..lo=value bit=value`: a bare argument names an operand
//! field, a range (or a field name) with `=value` fixes those bits. A leading `@` marks an
//! assembler pseudo-instruction (an alias of another encoding, e.g. `vld` for `vlsegd`
//! with one segment element). The files name fields but not their positions; the
//! positions are in [`WORKER_FIELDS`] and [`CONTROL_FIELDS`], and [`Table::parse`] checks
//! that every line's fields and fixed ranges tile the whole instruction exactly, so a
//! wrong position cannot go unnoticed.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Which instruction stream an instruction belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Thread {
    /// 32-bit RoCC instructions executed by the control processor (`opcodes-hwacha`).
    Control,
    /// 64-bit instructions of vector-fetch blocks (`opcodes-hwacha-ut`).
    Worker,
}

impl Thread {
    /// Instruction width in bits.
    pub fn width(self) -> u32 {
        match self {
            Thread::Control => 32,
            Thread::Worker => 64,
        }
    }
}

/// An operand field: a named bit range of an instruction word.
#[derive(Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub hi: u32,
    pub lo: u32,
}

impl Field {
    pub fn width(&self) -> u32 {
        self.hi - self.lo + 1
    }

    /// The field's bits in place.
    pub fn mask(&self) -> u64 {
        range_mask(self.hi, self.lo)
    }

    /// The field's value in `word`, right-aligned.
    pub fn get(&self, word: u64) -> u64 {
        (word & self.mask()) >> self.lo
    }

    /// `value` (truncated to the field's width) placed at the field's position.
    pub fn put(&self, value: u64) -> u64 {
        (value << self.lo) & self.mask()
    }
}

const fn field(name: &'static str, hi: u32, lo: u32) -> Field {
    Field { name, hi, lo }
}

/// Worker-thread field positions (thesis Figure 7.3 and how the fields are used in
/// `opcodes-hwacha-ut`). Register specifiers sit where the thesis puts them (rd 23:16,
/// rs1 31:24, rs2 40:33, rs3 48:41, predicate 15:12, n at 32, the d/1/2/3 kind flags at
/// 63:60) and agree with Hwacha's RTL decoder. Immediates are left-aligned (thesis:
/// "Immediates are left aligned"): the 32-bit `vimm` is 63:32, the 29-bit `vcimm` of the
/// consensual jumps is 63:35 with the 2-bit condition `vcond` below it at 34:33 (the RTL
/// reads the reduction function from 34:33). Address registers (5 bits) and predicate
/// registers (4 bits) are the low bits of the register slot they replace. `vprev`/`vsucc`
/// split the rd slot in two 4-bit halves, as RISC-V's FENCE predecessor/successor sets
/// (the files only say that together they fill 23:16). `vseglen` (47:45) and `vaqrl`
/// (54:53) are the gaps the files leave for them.
pub const WORKER_FIELDS: &[Field] = &[
    field("vd", 63, 63),
    field("vs1", 62, 62),
    field("vs2", 61, 61),
    field("vs3", 60, 60),
    field("vimm", 63, 32),
    field("vcimm", 63, 35),
    field("vcond", 34, 33),
    field("vpfunc", 57, 50),
    field("vaqrl", 54, 53),
    field("vrm", 52, 50),
    field("vseglen", 47, 45),
    field("vrs3", 48, 41),
    field("vprs3", 44, 41),
    field("vrs2", 40, 33),
    field("vars2", 37, 33),
    field("vprs2", 36, 33),
    field("vshamt", 37, 32),
    field("vshamtw", 36, 32),
    field("vn", 32, 32),
    field("vrs1", 31, 24),
    field("vars1", 28, 24),
    field("vprs1", 27, 24),
    field("vrd", 23, 16),
    field("vprd", 19, 16),
    field("vprev", 23, 20),
    field("vsucc", 19, 16),
    field("vpred", 15, 12),
];

/// Control-thread field positions: the RoCC format (thesis Figure 7.1), with the
/// S-type immediate halves of `vf` and the destination shared register of `vmcs` split
/// over the rs2 and rd slots (`svrdhi` 22:20 above `svrdlo` 11:7).
pub const CONTROL_FIELDS: &[Field] = &[
    field("rd", 11, 7),
    field("rs1", 19, 15),
    field("rs2", 24, 20),
    field("imm12", 31, 20),
    field("imm12hi", 31, 25),
    field("imm12lo", 11, 7),
    field("svrdhi", 22, 20),
    field("svrdlo", 11, 7),
    field("svard", 11, 7),
];

/// The field named `name` in `thread`'s layout.
pub fn field_def(thread: Thread, name: &str) -> Option<&'static Field> {
    let defs = match thread {
        Thread::Control => CONTROL_FIELDS,
        Thread::Worker => WORKER_FIELDS,
    };
    defs.iter().find(|f| f.name == name)
}

/// One instruction or pseudo-instruction of the encoding files.
#[derive(Debug)]
pub struct Instruction {
    pub name: String,
    pub thread: Thread,
    /// An `@` line: an alias of another encoding with some operand fields fixed.
    pub pseudo: bool,
    /// Operand fields in file order.
    pub fields: Vec<&'static Field>,
    /// Fixed bits (`word & mask == bits` for a matching word).
    pub bits: u64,
    pub mask: u64,
}

impl Instruction {
    pub fn has(&self, field: &str) -> bool {
        self.fields.iter().any(|f| f.name == field)
    }

    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().copied().find(|f| f.name == name)
    }

    /// Whether `word` is an encoding of this instruction.
    pub fn matches(&self, word: u64) -> bool {
        word & self.mask == self.bits
    }
}

/// A malformed line in an encoding file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}:{line}: {message}")]
pub struct TableError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Every instruction of a set of encoding files, by name.
#[derive(Debug)]
pub struct Table {
    instructions: Vec<Instruction>,
    by_name: HashMap<String, usize>,
}

/// The encoding files, embedded: (file name, thread, contents).
pub const FILES: &[(&str, Thread, &str)] = &[
    (
        "opcodes-hwacha",
        Thread::Control,
        include_str!("../opcodes/opcodes-hwacha"),
    ),
    (
        "opcodes-hwacha-pseudo",
        Thread::Control,
        include_str!("../opcodes/opcodes-hwacha-pseudo"),
    ),
    (
        "opcodes-hwacha-ut",
        Thread::Worker,
        include_str!("../opcodes/opcodes-hwacha-ut"),
    ),
    (
        "opcodes-hwacha-ut-pseudo",
        Thread::Worker,
        include_str!("../opcodes/opcodes-hwacha-ut-pseudo"),
    ),
];

/// The table of the embedded encoding files, parsed on first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The files are compiled in and `embedded_files_parse` checks them, so a failure
        // here is a build of broken data, not bad input.
        Table::parse(FILES).expect("embedded Hwacha encoding files are well formed")
    })
}

impl Table {
    /// Parses encoding files given as (name, thread, contents).
    pub fn parse(files: &[(&'static str, Thread, &str)]) -> Result<Table, TableError> {
        let mut table = Table {
            instructions: Vec::new(),
            by_name: HashMap::new(),
        };
        for &(file, thread, text) in files {
            for (index, raw) in text.lines().enumerate() {
                let line = raw.split('#').next().unwrap_or("").trim();
                if line.is_empty() {
                    continue;
                }
                let err = |message: String| TableError {
                    file: file.to_string(),
                    line: index + 1,
                    message,
                };
                let instr = parse_line(line, thread).map_err(err)?;
                if table.by_name.contains_key(&instr.name) {
                    return Err(err(format!("{} is defined twice", instr.name)));
                }
                table
                    .by_name
                    .insert(instr.name.clone(), table.instructions.len());
                table.instructions.push(instr);
            }
        }
        Ok(table)
    }

    pub fn get(&self, name: &str) -> Option<&Instruction> {
        self.by_name.get(name).map(|&i| &self.instructions[i])
    }

    pub fn instructions(&self) -> &[Instruction] {
        &self.instructions
    }

    /// The instruction `word` encodes: of all matching ones, the most specific (so a
    /// pseudo-instruction wins over the instruction it aliases).
    pub fn decode(&self, thread: Thread, word: u64) -> Option<&Instruction> {
        self.instructions
            .iter()
            .filter(|i| i.thread == thread && i.matches(word))
            .max_by_key(|i| i.mask.count_ones())
    }
}

fn range_mask(hi: u32, lo: u32) -> u64 {
    (u64::MAX >> (63 - hi)) & (u64::MAX << lo)
}

fn parse_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_line(line: &str, thread: Thread) -> Result<Instruction, String> {
    let mut tokens = line.split_whitespace();
    let first = tokens.next().unwrap_or_default();
    let (name, pseudo) = match first.strip_prefix('@') {
        Some(name) => (name, true),
        None => (first, false),
    };
    let mut instr = Instruction {
        name: name.to_string(),
        thread,
        pseudo,
        fields: Vec::new(),
        bits: 0,
        mask: 0,
    };
    // Every bit must be claimed exactly once, by a fixed range or by a field.
    let mut claimed = 0u64;
    let mut claim = |hi: u32, lo: u32, what: &str| -> Result<u64, String> {
        if hi < lo || hi >= thread.width() {
            return Err(format!("bad bit range {hi}..{lo} in {what}"));
        }
        let mask = range_mask(hi, lo);
        if claimed & mask != 0 {
            return Err(format!("{what} overlaps bits claimed earlier"));
        }
        claimed |= mask;
        Ok(mask)
    };
    for token in tokens {
        match token.split_once('=') {
            None => {
                let f = field_def(thread, token).ok_or_else(|| format!("unknown field {token}"))?;
                claim(f.hi, f.lo, token)?;
                instr.fields.push(f);
            }
            Some((range, value)) => {
                let value = parse_number(value).ok_or_else(|| format!("bad value in {token}"))?;
                let (hi, lo) = if let Some(f) = field_def(thread, range) {
                    (f.hi, f.lo)
                } else if let Some((hi, lo)) = range.split_once("..") {
                    let bit = |s: &str| s.parse::<u32>().map_err(|_| format!("bad range {token}"));
                    (bit(hi)?, bit(lo)?)
                } else {
                    let bit = range
                        .parse::<u32>()
                        .map_err(|_| format!("bad range {token}"))?;
                    (bit, bit)
                };
                let mask = claim(hi, lo, token)?;
                if value > mask >> lo {
                    return Err(format!("value of {token} does not fit its bits"));
                }
                instr.bits |= value << lo;
                instr.mask |= mask;
            }
        }
    }
    let all = range_mask(thread.width() - 1, 0);
    if claimed != all {
        return Err(format!(
            "{name}: bits {:#x} are neither fixed nor a field",
            all & !claimed
        ));
    }
    Ok(instr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_parse() {
        let table = Table::parse(FILES).unwrap();
        assert!(table.get("vadd").is_some());
        assert!(table.get("vsetcfg").is_some());
        assert!(table.get("vld").unwrap().pseudo);
        assert!(!table.get("vlsegd").unwrap().pseudo);
    }

    #[test]
    fn field_positions_are_the_documented_ones() {
        let vadd = table().get("vadd").unwrap();
        let names: Vec<_> = vadd.fields.iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            ["vd", "vs1", "vs2", "vrs2", "vn", "vrs1", "vrd", "vpred"]
        );
        // opcode OP (0x0C in 11:7) of the 64-bit format (6:0 = 0x3f).
        assert_eq!(vadd.bits, 0x0C << 7 | 0x3f);
    }

    /// No two instructions of the files (pseudo-instructions aside) share an encoding,
    /// so decoding never depends on table order.
    #[test]
    fn base_encodings_do_not_overlap() {
        let all = table().instructions();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.pseudo || b.pseudo || a.thread != b.thread {
                    continue;
                }
                assert!(
                    (a.bits ^ b.bits) & a.mask & b.mask != 0,
                    "{} and {} overlap",
                    a.name,
                    b.name
                );
            }
        }
    }

    /// Each pseudo-instruction is a special case of exactly one instruction.
    #[test]
    fn pseudo_instructions_alias_one_instruction() {
        let all = table().instructions();
        for p in all.iter().filter(|i| i.pseudo) {
            let bases: Vec<_> = all
                .iter()
                .filter(|b| !b.pseudo && b.thread == p.thread && b.matches(p.bits))
                .map(|b| b.name.as_str())
                .collect();
            assert_eq!(bases.len(), 1, "{} aliases {bases:?}", p.name);
        }
    }

    #[test]
    fn malformed_lines_are_reported_with_their_line() {
        let bad = |text: &'static str| Table::parse(&[("t", Thread::Control, text)]).unwrap_err();
        let full = "vx 31..25=0 rs2 rs1 14..12=0 rd 6..0=0x0b";
        assert!(Table::parse(&[("t", Thread::Control, full)]).is_ok());
        assert_eq!(
            bad("# comment\nvx 31..25=0 rs2 rs1 14..12=0 rd"),
            TableError {
                file: "t".into(),
                line: 2,
                message: "vx: bits 0x7f are neither fixed nor a field".into()
            }
        );
        let overlap = bad("vx 31..25=0 rs2 rs1 14..12=0 rd 6..0=0x0b 7=1");
        assert_eq!(overlap.message, "7=1 overlaps bits claimed earlier");
        let unknown = bad("vx 31..25=0 rs2 rs1 14..12=0 rx 6..0=0x0b");
        assert_eq!(unknown.message, "unknown field rx");
        let wide = bad("vx 31..25=0x80 rs2 rs1 14..12=0 rd 6..0=0x0b");
        assert_eq!(wide.message, "value of 31..25=0x80 does not fit its bits");
        // A field fixed by name (riscv-opcodes' `rd=0`).
        let fixed = Table::parse(&[(
            "t",
            Thread::Control,
            "vx 31..25=0 rs2 rs1 14..12=0 rd=3 6..0=0x0b",
        )])
        .unwrap();
        assert_eq!(fixed.get("vx").unwrap().bits, 3 << 7 | 0x0b);
        let twice = bad(
            "vx 31..25=0 rs2 rs1 14..12=0 rd 6..0=0x0b\nvx 31..25=0 rs2 rs1 14..12=0 rd 6..0=0x0b",
        );
        assert_eq!(twice.message, "vx is defined twice");
    }
}
