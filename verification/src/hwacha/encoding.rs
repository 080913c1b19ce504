//! The Hwacha instruction encodings, one table for the assembler and the golden model:
//! the published encoding files (riscv-opcodes line format, copied with their licence
//! into `opcodes/`), embedded at compile time and parsed once.
//!
//! A line is `name arg arg ...`: a bare word names an operand field; a bit range
//! `hi..lo`, a single bit or a field name with `=value` fixes those bits. A leading `@`
//! marks a pseudo-instruction, an alias of another line with some operand fields fixed
//! (`vld` is `vlsegd` with one segment element). The files name fields but not their
//! positions; [`Field`] holds them, and [`Table::parse`] checks that every line's fields
//! and fixed ranges tile the whole instruction exactly (no bit twice, none missing), so
//! a wrong position cannot go unnoticed: it would overlap a fixed range on some line.
//!
//! Decoding goes through a lookup built with the table: per thread, the instructions are
//! bucketed by the low bits every encoding of that thread fixes (worker: 11..0, the
//! 64-bit format and major opcode; control: 6..0), so a decode compares a word against
//! one opcode's encodings only.

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
    pub const fn width(self) -> u32 {
        match self {
            Thread::Control => 32,
            Thread::Worker => 64,
        }
    }
}

/// Declares [`Field`] with each variant's name in the files, thread and bit range.
macro_rules! fields {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $thread:ident, $hi:literal..$lo:literal;)*) => {
        /// A named operand field of an encoding line.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Field {
            $($(#[$doc])* $variant,)*
        }

        impl Field {
            /// Every field, worker thread first.
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];

            /// The field's name in the encoding files.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Field::$variant => $name,)*
                }
            }

            /// The thread whose instructions have this field.
            pub const fn thread(self) -> Thread {
                match self {
                    $(Field::$variant => Thread::$thread,)*
                }
            }

            /// Bit range `(hi, lo)` of the field.
            pub const fn range(self) -> (u32, u32) {
                match self {
                    $(Field::$variant => ($hi, $lo),)*
                }
            }
        }
    };
}

// Worker-thread positions: thesis Figure 7.3 and how the fields are used in
// `opcodes-hwacha-ut`; they agree with Hwacha's RTL decoder and ISA simulator. Register
// specifiers sit at rd 23:16, rs1 31:24, rs2 40:33, rs3 48:41, the predicate at 15:12, n
// at 32 and the d/1/2/3 operand-kind flags at 63:60. Immediates are left-aligned (thesis:
// "Immediates are left aligned"). Address registers (5 bits) and predicate registers (4
// bits) are the low bits of the register slot they replace. `vseglen` (47:45) and
// `vaqrl` (54:53) are the gaps the files leave for them.
//
// Control-thread positions: the RoCC format (thesis Figure 7.1), with the S-type
// immediate halves of `vf` and the destination shared register of `vmcs` split over the
// rs2 and rd slots (`svrdhi` 22:20 above `svrdlo` 11:7).
fields! {
    /// Operand-kind flag of rd: set for a vector data register, clear for a shared one.
    Vd = "vd", Worker, 63..63;
    Vs1 = "vs1", Worker, 62..62;
    Vs2 = "vs2", Worker, 61..61;
    Vs3 = "vs3", Worker, 60..60;
    Vimm = "vimm", Worker, 63..32;
    /// 29-bit consensual-jump offset in units of 8 bytes, above the condition.
    Vcimm = "vcimm", Worker, 63..35;
    /// Consensual condition, 0 = all, 1 = any (the RTL reads it from 34:33).
    Vcond = "vcond", Worker, 34..33;
    Vpfunc = "vpfunc", Worker, 57..50;
    Vaqrl = "vaqrl", Worker, 54..53;
    Vrm = "vrm", Worker, 52..50;
    Vseglen = "vseglen", Worker, 47..45;
    Vrs3 = "vrs3", Worker, 48..41;
    Vprs3 = "vprs3", Worker, 44..41;
    Vrs2 = "vrs2", Worker, 40..33;
    Vars2 = "vars2", Worker, 37..33;
    Vprs2 = "vprs2", Worker, 36..33;
    Vshamt = "vshamt", Worker, 37..32;
    Vshamtw = "vshamtw", Worker, 36..32;
    Vn = "vn", Worker, 32..32;
    Vrs1 = "vrs1", Worker, 31..24;
    Vars1 = "vars1", Worker, 28..24;
    Vprs1 = "vprs1", Worker, 27..24;
    Vrd = "vrd", Worker, 23..16;
    Vprd = "vprd", Worker, 19..16;
    /// Fence predecessor set above the successor set, as RISC-V's FENCE (the files only
    /// say that together they fill 23:16).
    Vprev = "vprev", Worker, 23..20;
    Vsucc = "vsucc", Worker, 19..16;
    Vpred = "vpred", Worker, 15..12;
    Rd = "rd", Control, 11..7;
    Rs1 = "rs1", Control, 19..15;
    Rs2 = "rs2", Control, 24..20;
    Imm12 = "imm12", Control, 31..20;
    Imm12hi = "imm12hi", Control, 31..25;
    Imm12lo = "imm12lo", Control, 11..7;
    Svrdhi = "svrdhi", Control, 22..20;
    Svrdlo = "svrdlo", Control, 11..7;
    Svard = "svard", Control, 11..7;
}

impl Field {
    /// The field of `thread` that the files call `name`.
    pub fn from_name(thread: Thread, name: &str) -> Option<Field> {
        Field::ALL
            .iter()
            .copied()
            .find(|f| f.thread() == thread && f.name() == name)
    }

    pub const fn width(self) -> u32 {
        let (hi, lo) = self.range();
        hi - lo + 1
    }

    /// The field's bits in place.
    pub const fn mask(self) -> u64 {
        let (hi, lo) = self.range();
        range_mask(hi, lo)
    }

    /// The field's value in `word`, zero-extended.
    pub const fn get(self, word: u64) -> u64 {
        (word & self.mask()) >> self.range().1
    }

    /// The field's value in `word`, sign-extended from its top bit.
    pub const fn get_signed(self, word: u64) -> i64 {
        let (hi, lo) = self.range();
        ((word << (63 - hi)) as i64) >> (63 - hi + lo)
    }

    /// `value` (truncated to the field's width) placed at the field's position.
    pub const fn put(self, value: u64) -> u64 {
        (value << self.range().1) & self.mask()
    }

    /// The operand-kind flag (d/1/2/3) that says whether worker register slot
    /// `self` (vrd/vrs1/vrs2/vrs3) names a vector data or a shared register.
    pub const fn kind_flag(self) -> Option<Field> {
        match self {
            Field::Vrd => Some(Field::Vd),
            Field::Vrs1 => Some(Field::Vs1),
            Field::Vrs2 => Some(Field::Vs2),
            Field::Vrs3 => Some(Field::Vs3),
            _ => None,
        }
    }
}

/// A set of fields, one bit each, for a constant-time [`Instruction::has`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldSet(u64);

impl FieldSet {
    pub const fn contains(self, f: Field) -> bool {
        self.0 >> f as u32 & 1 != 0
    }

    fn insert(&mut self, f: Field) {
        self.0 |= 1 << f as u32;
    }
}

/// One instruction or pseudo-instruction of the encoding files.
#[derive(Debug)]
pub struct Instruction {
    pub name: &'static str,
    pub thread: Thread,
    /// An `@` line: an alias of another encoding with some operand fields fixed.
    pub pseudo: bool,
    /// Operand fields in file order.
    pub fields: Vec<Field>,
    /// The same fields as a set.
    pub field_set: FieldSet,
    /// Fixed bits (`word & mask == bits` for a matching word).
    pub bits: u64,
    pub mask: u64,
}

impl Instruction {
    pub fn has(&self, f: Field) -> bool {
        self.field_set.contains(f)
    }

    /// `Some(f)` when the instruction has operand field `f`.
    pub fn field(&self, f: Field) -> Option<Field> {
        self.has(f).then_some(f)
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

/// The encoding files, embedded: (file name, thread, contents).
pub const FILES: &[(&str, Thread, &str)] = &[
    (
        "opcodes-hwacha",
        Thread::Control,
        include_str!("opcodes/opcodes-hwacha"),
    ),
    (
        "opcodes-hwacha-pseudo",
        Thread::Control,
        include_str!("opcodes/opcodes-hwacha-pseudo"),
    ),
    (
        "opcodes-hwacha-ut",
        Thread::Worker,
        include_str!("opcodes/opcodes-hwacha-ut"),
    ),
    (
        "opcodes-hwacha-ut-pseudo",
        Thread::Worker,
        include_str!("opcodes/opcodes-hwacha-ut-pseudo"),
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

/// Every instruction of a set of encoding files, by name and by encoding.
#[derive(Debug)]
pub struct Table {
    instructions: Vec<Instruction>,
    by_name: HashMap<&'static str, usize>,
    /// Decode lookup, by `Thread as usize`.
    lookup: [Lookup; 2],
}

/// One thread's instructions bucketed by `word & key_mask`.
#[derive(Debug)]
struct Lookup {
    key_mask: u64,
    base: Buckets,
    /// Most specific (most fixed bits) first.
    pseudo: Buckets,
}

/// Bucket `k` is `entries[starts[k]..starts[k + 1]]`.
#[derive(Debug)]
struct Buckets {
    starts: Vec<u32>,
    entries: Vec<Entry>,
}

/// An instruction's fixed bits next to its index, so a bucket scan stays in one array.
#[derive(Debug, Clone, Copy)]
struct Entry {
    mask: u64,
    bits: u64,
    index: u32,
}

/// At most 2^12 buckets a thread: the worker thread's 12 common bits, no more.
const MAX_KEY_BITS: u32 = 12;

impl Buckets {
    fn new(key_mask: u64, mut entries: Vec<Entry>) -> Buckets {
        // Stable, so entries keep their order within a bucket.
        entries.sort_by_key(|e| e.bits & key_mask);
        let mut starts = Vec::with_capacity(key_mask as usize + 2);
        let mut at = 0;
        for key in 0..=key_mask {
            starts.push(at as u32);
            while at < entries.len() && entries[at].bits & key_mask == key {
                at += 1;
            }
        }
        starts.push(at as u32);
        Buckets { starts, entries }
    }

    fn find(&self, key: u64, word: u64) -> Option<usize> {
        let (start, end) = (self.starts[key as usize], self.starts[key as usize + 1]);
        self.entries[start as usize..end as usize]
            .iter()
            .find(|e| word & e.mask == e.bits)
            .map(|e| e.index as usize)
    }
}

impl Lookup {
    fn new(thread: Thread, instructions: &[Instruction]) -> Lookup {
        let of_thread = || {
            instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| i.thread == thread)
        };
        let common = of_thread().fold(u64::MAX, |m, (_, i)| m & i.mask);
        let key_mask = (1 << common.trailing_ones().min(MAX_KEY_BITS)) - 1;
        let entries = |pseudo: bool| -> Vec<Entry> {
            let mut entries: Vec<Entry> = of_thread()
                .filter(|(_, i)| i.pseudo == pseudo)
                .map(|(index, i)| Entry {
                    mask: i.mask,
                    bits: i.bits,
                    index: index as u32,
                })
                .collect();
            entries.sort_by_key(|e| std::cmp::Reverse(e.mask.count_ones()));
            entries
        };
        Lookup {
            key_mask,
            base: Buckets::new(key_mask, entries(false)),
            pseudo: Buckets::new(key_mask, entries(true)),
        }
    }
}

impl Table {
    /// Parses encoding files given as (name, thread, contents).
    pub fn parse(files: &[(&'static str, Thread, &'static str)]) -> Result<Table, TableError> {
        let mut instructions = Vec::new();
        let mut by_name = HashMap::new();
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
                if by_name.insert(instr.name, instructions.len()).is_some() {
                    return Err(err(format!("{} is defined twice", instr.name)));
                }
                instructions.push(instr);
            }
        }
        let lookup = [Thread::Control, Thread::Worker].map(|t| Lookup::new(t, &instructions));
        Ok(Table {
            instructions,
            by_name,
            lookup,
        })
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
        let lookup = &self.lookup[thread as usize];
        let key = word & lookup.key_mask;
        let index = match lookup.pseudo.find(key, word) {
            Some(index) => index,
            None => lookup.base.find(key, word)?,
        };
        Some(&self.instructions[index])
    }

    /// The index in [`Table::instructions`] of the instruction, not pseudo-instruction,
    /// that `word` encodes (the files' base encodings do not overlap, so there is at
    /// most one).
    pub fn base_index(&self, thread: Thread, word: u64) -> Option<usize> {
        let lookup = &self.lookup[thread as usize];
        lookup.base.find(word & lookup.key_mask, word)
    }
}

const fn range_mask(hi: u32, lo: u32) -> u64 {
    (u64::MAX >> (63 - hi)) & (u64::MAX << lo)
}

fn parse_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_line(line: &'static str, thread: Thread) -> Result<Instruction, String> {
    let mut tokens = line.split_whitespace();
    let first = tokens.next().unwrap_or_default();
    let (name, pseudo) = match first.strip_prefix('@') {
        Some(name) => (name, true),
        None => (first, false),
    };
    let mut instr = Instruction {
        name,
        thread,
        pseudo,
        fields: Vec::new(),
        field_set: FieldSet::default(),
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
                let f = Field::from_name(thread, token)
                    .ok_or_else(|| format!("unknown field {token}"))?;
                let (hi, lo) = f.range();
                claim(hi, lo, token)?;
                instr.fields.push(f);
                instr.field_set.insert(f);
            }
            Some((range, value)) => {
                let value = parse_number(value).ok_or_else(|| format!("bad value in {token}"))?;
                let (hi, lo) = if let Some(f) = Field::from_name(thread, range) {
                    f.range()
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
    use crate::rng::Rng;

    fn count(thread: Thread, pseudo: bool) -> usize {
        table()
            .instructions()
            .iter()
            .filter(|i| i.thread == thread && i.pseudo == pseudo)
            .count()
    }

    #[test]
    fn embedded_files_parse() {
        let table = Table::parse(FILES).unwrap();
        assert!(table.get("vadd").is_some());
        assert!(table.get("vsetcfg").is_some());
        assert!(table.get("vld").unwrap().pseudo);
        assert!(!table.get("vlsegd").unwrap().pseudo);
        // Every line of the four files (counted by hand).
        assert_eq!(count(Thread::Worker, false), 226);
        assert_eq!(count(Thread::Worker, true), 66);
        assert_eq!(count(Thread::Control, false), 20);
        assert_eq!(count(Thread::Control, true), 0);
    }

    #[test]
    fn field_positions_are_the_documented_ones() {
        let vadd = table().get("vadd").unwrap();
        use Field::*;
        assert_eq!(vadd.fields, [Vd, Vs1, Vs2, Vrs2, Vn, Vrs1, Vrd, Vpred]);
        // opcode OP (0x0C in 11:7) of the 64-bit format (6:0 = 0x3f).
        assert_eq!(vadd.bits, 0x0C << 7 | 0x3f);
        assert_eq!((Vrs2.range(), Vrs2.mask()), ((40, 33), 0xff << 33));
        assert_eq!(Vcimm.get_signed(0x8000_0000_0000_0000), -(1 << 28));
        assert_eq!(Vimm.get(Vimm.put(0x1_2345_6789)), 0x2345_6789);
        assert_eq!(Field::from_name(Thread::Control, "rd"), Some(Rd));
        // A field name of the other thread is not a field here.
        assert_eq!(Field::from_name(Thread::Worker, "rd"), None);
        assert_eq!(Vrs3.kind_flag(), Some(Vs3));
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
                .map(|b| b.name)
                .collect();
            assert_eq!(bases.len(), 1, "{} aliases {bases:?}", p.name);
        }
    }

    /// The bucketed lookup finds what a scan of every instruction finds: for each
    /// encoding with random operand fields, and for random words.
    #[test]
    fn lookup_agrees_with_a_scan() {
        let table = table();
        let scan = |thread: Thread, word: u64, pseudo_too: bool| {
            table
                .instructions()
                .iter()
                .filter(|i| i.thread == thread && (pseudo_too || !i.pseudo) && i.matches(word))
                .max_by_key(|i| i.mask.count_ones())
                .map(|i| i.name)
        };
        let mut rng = Rng::new(7);
        let mut words: Vec<(Thread, u64)> = Vec::new();
        for i in table.instructions() {
            for _ in 0..20 {
                let operands = rng.next_u64() & !i.mask & range_mask(i.thread.width() - 1, 0);
                words.push((i.thread, i.bits | operands));
            }
        }
        for _ in 0..10_000 {
            let w = rng.next_u64();
            // Random words with the worker format's low bits, so some decode.
            words.push((Thread::Worker, w | 0x3f));
            words.push((Thread::Control, w & 0xffff_ffff));
        }
        let mut decoded = 0;
        for (thread, word) in words {
            let base = table.base_index(thread, word);
            assert_eq!(
                base.map(|i| table.instructions()[i].name),
                scan(thread, word, false),
                "{word:#x}"
            );
            assert_eq!(
                table.decode(thread, word).map(|i| i.name),
                scan(thread, word, true),
                "{word:#x}"
            );
            decoded += base.is_some() as usize;
        }
        assert!(decoded > 6000, "{decoded}");
    }

    #[test]
    fn decode_prefers_the_pseudo_instruction() {
        let table = table();
        let vld = table.get("vld").unwrap();
        assert_eq!(table.decode(Thread::Worker, vld.bits).unwrap().name, "vld");
        let base = table.base_index(Thread::Worker, vld.bits).unwrap();
        assert_eq!(table.instructions()[base].name, "vlsegd");
        assert!(table.decode(Thread::Worker, 0x13).is_none());
        assert_eq!(table.base_index(Thread::Control, 0x13), None);
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
        let outside = bad("vx 32..25=0 rs2 rs1 14..12=0 rd 6..0=0x0b");
        assert_eq!(outside.message, "bad bit range 32..25 in 32..25=0");
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
