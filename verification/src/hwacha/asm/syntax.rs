//! Assembly syntax of one Hwacha instruction: the operand list each instruction takes
//! (derived from its fields), the assembler of one statement and the disassembler.
//!
//! Operands come in a fixed order of field kinds: predicate registers, then rd, rs1 (or
//! an address register), rs2, rs3, then immediates, the segment count, the jump offset,
//! the truth table, the fence sets and the rounding mode. This gives the thesis syntax
//! for every instruction (`vlstw vd, as1, as2`, `vcmpeq pd, rs1, rs2`, `vps ps, as1`,
//! `vssd ss1, ss2` with the address first, `vsab as1, ss2`, ...). Fields that are not
//! operands are spelled elsewhere: the kind flags by the register names (vv or vs), the
//! predicate by an `@vpN`/`@!vpN` prefix, the jump condition and AMO ordering by mnemonic
//! suffixes (`vcjal.any`, `vamoadd.w.aq`).
//!
//! The upstream esp-tests spellings are accepted too ([`upstream_operands`]): `veidx vd`
//! (source vs0) and `vcjal N, rd, OFF` / `vcjalr N, rd, rs1, OFF` (the condition as an
//! operand, 0 all, 1 any; the offset a constant in 8-byte units). The operand count (and
//! the absent condition suffix) tells the two apart; the disassembler prints ours.

use super::error::AsmErrorKind;
use super::expr::{eval, ExprError};
use crate::hwacha::encoding::{table, Field, Instruction, Thread};

/// The x register scratched by the `vf label` and wide-immediate `vsetcfg` macros when no
/// register is named (t0, as GNU as's own `call`/`tail`-style expansions use a temporary).
pub const SCRATCH: u8 = 5;

/// The register classes of the Hwacha worker thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `vv0-vv255` vector data registers.
    Vector,
    /// `vs0-vs63` shared registers.
    Shared,
    /// `va0-va31` address registers.
    Address,
    /// `vp0-vp15` predicate registers.
    Predicate,
}

impl Class {
    fn prefix(self) -> &'static str {
        match self {
            Class::Vector => "vv",
            Class::Shared => "vs",
            Class::Address => "va",
            Class::Predicate => "vp",
        }
    }

    fn count(self) -> u64 {
        match self {
            Class::Vector => 256,
            Class::Shared => 64,
            Class::Address => 32,
            Class::Predicate => 16,
        }
    }

    fn describe(self) -> String {
        let what = match self {
            Class::Vector => "a vector data register",
            Class::Shared => "a shared register",
            Class::Address => "an address register",
            Class::Predicate => "a predicate register",
        };
        format!("{what} ({})", self.range())
    }

    fn range(self) -> String {
        let p = self.prefix();
        format!("{p}0-{p}{}", self.count() - 1)
    }
}

/// Which classes a worker register slot (rd/rs1/rs2/rs3) accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// vv or vs, recorded in this kind-flag field (d/1/2/3).
    Either(Field),
    /// The kind flag is fixed (or taken by an immediate, which makes the slot shared).
    Only(Class),
}

/// How an immediate is written and printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Decimal,
    Hex,
}

/// One operand of an instruction's assembly syntax.
#[derive(Debug, Clone, Copy)]
enum Operand {
    /// Control-thread x register.
    XReg(Field),
    /// Worker register slot holding a vv or vs register.
    Reg(Field, Slot),
    /// The address of a vector AMO, written `0(reg)`.
    AmoAddress(Field, Slot),
    /// A register of a single class in its own field (address, predicate registers).
    Class(Field, Class),
    /// `vmcs`'s destination shared register, split over two fields (high, low).
    SplitShared(Field, Field),
    Imm {
        field: Field,
        min: i128,
        max: i128,
        style: Style,
    },
    /// Segment element count 1-8, encoded as count - 1.
    SegmentCount(Field),
    /// vcjal's target: a label (resolved by GNU as) or a byte offset from the jump.
    Target(Field),
    /// vcjalr's byte offset, a multiple of 8.
    JumpOffset(Field),
    /// Upstream spelling: the jump condition as a number, 0 all, 1 any.
    Condition(Field),
    /// Upstream spelling: a constant jump offset in 8-byte units.
    JumpUnits(Field),
    /// `offset(rs1)` of vf/vft: a 12-bit offset split high/low.
    Address { hi: Field, lo: Field, base: Field },
    /// Optional static rounding mode (default `dyn`).
    RoundingMode(Field),
    /// Optional pair of fence sets, predecessor and successor (default: both all-ones).
    Fence(Field, Field),
    /// vsetcfg's optional immediate, the low 12 bits of the configuration (default 0).
    ConfigLow(Field),
}

impl Operand {
    /// How many assembly operands this stands for, and how many of them may be left out.
    fn arity(&self) -> (usize, usize) {
        match self {
            Operand::RoundingMode(_) | Operand::ConfigLow(_) => (1, 1),
            Operand::Fence(..) => (2, 2),
            _ => (1, 0),
        }
    }
}

const RM_NAMES: [(&str, u64); 6] = [
    ("rne", 0),
    ("rtz", 1),
    ("rdn", 2),
    ("rup", 3),
    ("rmm", 4),
    ("dyn", 7),
];
const RM_DYN: u64 = 7;
const FENCE_ALL: u64 = 0xf;

const XREG_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6",
];

fn slot(instr: &Instruction, reg: Field) -> Slot {
    let Some(flag) = reg.kind_flag() else {
        return Slot::Only(Class::Shared);
    };
    if instr.has(flag) {
        Slot::Either(flag)
    } else if instr.mask & flag.mask() != 0 {
        // The file fixes the flag: 1 is a vector data register, 0 a shared one.
        if instr.bits & flag.mask() != 0 {
            Slot::Only(Class::Vector)
        } else {
            Slot::Only(Class::Shared)
        }
    } else {
        // The flag bit belongs to an immediate (vaddi, vcjal...): a scalar operand.
        Slot::Only(Class::Shared)
    }
}

/// The operands of `instr`, in assembly order.
fn operands(instr: &Instruction) -> Vec<Operand> {
    match instr.thread {
        Thread::Worker => worker_operands(instr),
        Thread::Control => control_operands(instr),
    }
}

fn worker_operands(instr: &Instruction) -> Vec<Operand> {
    use Field::*;
    let mut ops = Vec::new();
    let amo = instr.has(Vaqrl);
    for f in [
        Vprd, Vprs1, Vprs2, Vprs3, Vrd, Vrs1, Vars1, Vrs2, Vars2, Vrs3, Vimm, Vshamt, Vshamtw,
        Vseglen, Vcimm, Vpfunc, Vprev, Vrm,
    ] {
        if !instr.has(f) {
            continue;
        }
        ops.push(match f {
            Vprd | Vprs1 | Vprs2 | Vprs3 => Operand::Class(f, Class::Predicate),
            Vars1 | Vars2 => Operand::Class(f, Class::Address),
            Vrs1 if amo => Operand::AmoAddress(f, slot(instr, f)),
            Vrd | Vrs1 | Vrs2 | Vrs3 => Operand::Reg(f, slot(instr, f)),
            Vimm if instr.has(Vrs1) => Operand::Imm {
                field: f,
                min: i32::MIN as i128,
                max: u32::MAX as i128,
                style: Style::Decimal,
            },
            // vlui/vauipc: an upper immediate, clearer in hex.
            Vimm => Operand::Imm {
                field: f,
                min: i32::MIN as i128,
                max: u32::MAX as i128,
                style: Style::Hex,
            },
            Vshamt | Vshamtw => Operand::Imm {
                field: f,
                min: 0,
                max: (1 << f.width()) - 1,
                style: Style::Decimal,
            },
            Vpfunc => Operand::Imm {
                field: f,
                min: 0,
                max: 0xff,
                style: Style::Hex,
            },
            Vseglen => Operand::SegmentCount(f),
            Vcimm if instr.has(Vrs1) => Operand::JumpOffset(f),
            Vcimm => Operand::Target(f),
            Vprev => match instr.field(Vsucc) {
                Some(succ) => Operand::Fence(f, succ),
                None => continue,
            },
            _ => Operand::RoundingMode(f),
        });
    }
    ops
}

/// The operands of `instr` in the upstream esp-tests spelling, for the instructions where
/// it differs from ours: the consensual jumps take their condition as a first operand
/// and their offset in 8-byte units; `veidx` takes only vd (its source is vs0).
fn upstream_operands(instr: &Instruction) -> Option<Vec<Operand>> {
    if instr.thread != Thread::Worker {
        return None;
    }
    let ours = worker_operands(instr);
    if let Some(cond) = instr.field(Field::Vcond) {
        let jumps = ours.into_iter().map(|op| match op {
            Operand::Target(f) | Operand::JumpOffset(f) => Operand::JumpUnits(f),
            other => other,
        });
        return Some(
            std::iter::once(Operand::Condition(cond))
                .chain(jumps)
                .collect(),
        );
    }
    (instr.name == "veidx").then(|| {
        ours.into_iter()
            .filter(|op| !matches!(op, Operand::Reg(Field::Vrs1, _)))
            .collect()
    })
}

/// The operands a worker statement with `count` operands is written with: ours, or the
/// upstream spelling when the count (and, for a jump, the absent condition suffix) says
/// so. A count that fits neither is reported with both.
fn select_operands(
    instr: &Instruction,
    mnemonic: &str,
    cond_suffix: bool,
    count: usize,
) -> Result<Vec<Operand>, AsmErrorKind> {
    let ours = operands(instr);
    let needs_cond = instr.has(Field::Vcond) && !cond_suffix;
    let Some(upstream) = upstream_operands(instr).filter(|_| !cond_suffix) else {
        return Ok(ours);
    };
    let total = |ops: &[Operand]| ops.iter().map(|o| o.arity().0).sum::<usize>();
    let (theirs, own) = (total(&upstream), total(&ours));
    if theirs == count {
        return Ok(upstream);
    }
    if needs_cond {
        return Err(AsmErrorKind::BadSuffix {
            mnemonic: mnemonic.to_string(),
            message: "needs a condition suffix, `.all` or `.any`, or the condition as its \
                      first operand (0 all, 1 any)"
                .into(),
        });
    }
    if own != count {
        return Err(AsmErrorKind::OperandCount {
            mnemonic: instr.name.to_string(),
            expected: format!("{} or {}", theirs.min(own), theirs.max(own)),
            found: count,
        });
    }
    Ok(ours)
}

fn control_operands(instr: &Instruction) -> Vec<Operand> {
    use Field::*;
    let mut ops = Vec::new();
    let address = instr.field(Imm12hi).zip(instr.field(Imm12lo));
    for f in [Rd, Svrdhi, Svard, Rs1, Rs2, Imm12] {
        if !instr.has(f) {
            continue;
        }
        ops.push(match f {
            Svrdhi => match instr.field(Svrdlo) {
                Some(lo) => Operand::SplitShared(f, lo),
                None => continue,
            },
            Svard => Operand::Class(f, Class::Address),
            Rs1 => match address {
                Some((hi, lo)) => Operand::Address { hi, lo, base: f },
                None => Operand::XReg(f),
            },
            Imm12 => Operand::ConfigLow(f),
            _ => Operand::XReg(f),
        });
    }
    ops
}

/// An assembled statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assembled {
    /// A complete worker-thread instruction.
    Worker(u64),
    /// A complete control-thread instruction.
    Control(u32),
    /// vcjal to a label: GNU as puts `(target - .) / 8` into the 29-bit `vcimm` (63:35).
    WorkerJump { word: u64, target: String },
    /// vf/vft whose offset is a relocation (`%pcrel_lo(1b)`): emitted as `.insn s`.
    ControlRelocated { word: u32, offset: String },
    /// `vf label[, xN]`: `auipc xN, %pcrel_hi(label)` then vf with `%pcrel_lo`.
    ControlPcrel {
        word: u32,
        target: String,
        scratch: u8,
    },
    /// vsetcfg of a configuration wider than 12 bits: its upper bits are loaded into the
    /// scratch register (`li`) and `word` (vsetcfg scratch, low 12 bits) follows.
    ControlWide { word: u32, upper: u64, scratch: u8 },
}

impl Assembled {
    /// GNU as statements for this instruction. `label` names the local label that
    /// `ControlPcrel` needs; it must be unique in the file.
    pub fn gas(&self, label: &str) -> String {
        match self {
            Assembled::Worker(w) => format!(".8byte {w:#018x}"),
            Assembled::Control(w) => format!(".insn {w:#010x}"),
            // GNU as's `|` binds tighter than `+`/`-`, so every operation is parenthesised.
            Assembled::WorkerJump { word, target } => format!(
                ".8byte {word:#018x} | ((((({target}) - .) >> 3) & 0x1fffffff) << 35)"
            ),
            Assembled::ControlRelocated { word, offset } => {
                let base = (word >> 15) & 31;
                format!("{}, {offset}(x{base})", insn_s_prefix(*word))
            }
            Assembled::ControlPcrel {
                word,
                target,
                scratch,
            } => format!(
                "{label}: auipc x{scratch}, %pcrel_hi({target}); {}, %pcrel_lo({label})(x{scratch})",
                insn_s_prefix(*word)
            ),
            Assembled::ControlWide {
                word,
                upper,
                scratch,
            } => format!("li x{scratch}, {upper:#x}; .insn {word:#010x}"),
        }
    }
}

/// `.insn s opcode, funct3, rs2` of an S-type control instruction (vf/vft).
fn insn_s_prefix(word: u32) -> String {
    format!(
        ".insn s {:#x}, {}, x{}",
        word & 0x7f,
        (word >> 12) & 7,
        (word >> 20) & 31
    )
}

/// Assembles one Hwacha statement (labels already removed), e.g. `@!vp1 vadd vv1, vv2, vs3`.
pub fn assemble(statement: &str) -> Result<Assembled, AsmErrorKind> {
    let statement = statement.trim();
    let (prefix, rest) = match statement.strip_prefix('@') {
        Some(p) => {
            let end = p.find(char::is_whitespace).unwrap_or(p.len());
            (Some(&p[..end]), p[end..].trim_start())
        }
        None => (None, statement),
    };
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let mnemonic = rest[..end].to_ascii_lowercase();
    if mnemonic.is_empty() {
        return Err(AsmErrorKind::Syntax(
            "predicate prefix without an instruction".into(),
        ));
    }
    let texts = split_operands(rest[end..].trim())?;
    let (instr, suffixes) = lookup(&mnemonic)?;
    match instr.thread {
        Thread::Worker => assemble_worker(instr, &mnemonic, &suffixes, prefix, &texts),
        Thread::Control => {
            if let Some(p) = prefix {
                return Err(AsmErrorKind::Predication(format!(
                    "`@{p}`: control-thread instruction `{mnemonic}` cannot be predicated"
                )));
            }
            if !suffixes.is_empty() {
                return Err(AsmErrorKind::BadSuffix {
                    mnemonic,
                    message: format!("`{}` takes no suffix", instr.name),
                });
            }
            assemble_control(instr, &texts)
        }
    }
}

/// Splits at top-level commas (a comma inside parentheses belongs to an expression).
fn split_operands(text: &str) -> Result<Vec<&str>, AsmErrorKind> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    if let Some(i) = out.iter().position(|t| t.is_empty()) {
        return Err(AsmErrorKind::Syntax(format!("operand {} is empty", i + 1)));
    }
    Ok(out)
}

/// The instruction a mnemonic names, and the suffixes after its name. The longest
/// dotted prefix that names an instruction wins, so `vfcvt.d.s` is the conversion and
/// `vfsqrt.d.s` is `vfsqrt.d` with a scalar source.
fn lookup(mnemonic: &str) -> Result<(&'static Instruction, Vec<&str>), AsmErrorKind> {
    let parts: Vec<&str> = mnemonic.split('.').collect();
    for n in (1..=parts.len()).rev() {
        if let Some(instr) = table().get(&parts[..n].join(".")) {
            return Ok((instr, parts[n..].to_vec()));
        }
    }
    Err(AsmErrorKind::UnknownMnemonic(mnemonic.to_string()))
}

/// The kind-flag fields an operand-kind suffix spells, in order (rs1, rs2, rs3).
fn source_flags(instr: &Instruction) -> Vec<Field> {
    [Field::Vs1, Field::Vs2, Field::Vs3]
        .into_iter()
        .filter_map(|f| instr.field(f))
        .collect()
}

/// Values of the suffix-spelled fields.
struct Suffixes {
    cond: Option<u64>,
    aqrl: Option<u64>,
    kinds: Option<Vec<Class>>,
}

fn parse_suffixes(
    instr: &Instruction,
    mnemonic: &str,
    suffixes: &[&str],
) -> Result<Suffixes, AsmErrorKind> {
    let mut out = Suffixes {
        cond: None,
        aqrl: None,
        kinds: None,
    };
    let sources = source_flags(instr).len();
    let bad = |message: String| AsmErrorKind::BadSuffix {
        mnemonic: mnemonic.to_string(),
        message,
    };
    for &s in suffixes {
        if instr.has(Field::Vcond) && out.cond.is_none() && (s == "all" || s == "any") {
            out.cond = Some(if s == "all" { 0 } else { 1 });
        } else if instr.has(Field::Vaqrl) && out.aqrl.is_none() && matches!(s, "aq" | "rl" | "aqrl")
        {
            out.aqrl = Some(match s {
                "aq" => 2,
                "rl" => 1,
                _ => 3,
            });
        } else if sources > 0
            && out.kinds.is_none()
            && s.len() == sources
            && s.chars().all(|c| c == 'v' || c == 's')
        {
            let kinds = s
                .chars()
                .map(|c| {
                    if c == 'v' {
                        Class::Vector
                    } else {
                        Class::Shared
                    }
                })
                .collect();
            out.kinds = Some(kinds);
        } else {
            let kinds = if sources == 0 {
                "no operand-kind suffix".to_string()
            } else {
                format!(
                    "an operand-kind suffix of {sources} letter{} v/s",
                    if sources == 1 { "" } else { "s" }
                )
            };
            let mut allowed = vec![kinds];
            if instr.has(Field::Vcond) {
                allowed.push("`.all`/`.any`".into());
            }
            if instr.has(Field::Vaqrl) {
                allowed.push("`.aq`/`.rl`/`.aqrl`".into());
            }
            return Err(bad(format!(
                "bad suffix `.{s}` (`{}` takes {})",
                instr.name,
                allowed.join(", ")
            )));
        }
    }
    Ok(out)
}

/// Checks the operand count against the syntax.
fn check_count(instr: &Instruction, ops: &[Operand], found: usize) -> Result<(), AsmErrorKind> {
    let (total, optional) = ops.iter().fold((0, 0), |(t, o), op| {
        let (n, opt) = op.arity();
        (t + n, o + opt)
    });
    let required = total - optional;
    // An optional operand group is either fully present or absent.
    let ok = found == total || found == required;
    if ok {
        return Ok(());
    }
    let expected = if optional == 0 {
        total.to_string()
    } else {
        format!("{required} or {total}")
    };
    Err(AsmErrorKind::OperandCount {
        mnemonic: instr.name.to_string(),
        expected,
        found,
    })
}

/// A parsed Hwacha register name: class and index, or None if `text` is not one.
fn parse_vreg(text: &str, operand: usize) -> Result<Option<(Class, u64)>, AsmErrorKind> {
    let lower = text.to_ascii_lowercase();
    for class in [
        Class::Vector,
        Class::Shared,
        Class::Address,
        Class::Predicate,
    ] {
        let Some(digits) = lower.strip_prefix(class.prefix()) else {
            continue;
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let index: u64 = digits.parse().unwrap_or(u64::MAX);
        if index >= class.count() {
            return Err(AsmErrorKind::RegisterOutOfRange {
                operand,
                register: text.to_string(),
                range: class.range(),
            });
        }
        return Ok(Some((class, index)));
    }
    Ok(None)
}

fn parse_class(text: &str, operand: usize, class: Class) -> Result<u64, AsmErrorKind> {
    match parse_vreg(text, operand)? {
        Some((c, index)) if c == class => Ok(index),
        _ => Err(AsmErrorKind::WrongOperandKind {
            operand,
            expected: class.describe(),
            found: text.to_string(),
        }),
    }
}

fn parse_xreg(text: &str, operand: usize) -> Result<u64, AsmErrorKind> {
    let lower = text.to_ascii_lowercase();
    let index = if let Some(i) = XREG_NAMES.iter().position(|n| *n == lower) {
        Some(i as u64)
    } else if lower == "fp" {
        Some(8)
    } else {
        lower
            .strip_prefix('x')
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .map(|d| d.parse::<u64>().unwrap_or(u64::MAX))
    };
    match index {
        Some(i) if i < 32 => Ok(i),
        Some(_) => Err(AsmErrorKind::RegisterOutOfRange {
            operand,
            register: text.to_string(),
            range: "x0-x31".into(),
        }),
        None => Err(AsmErrorKind::WrongOperandKind {
            operand,
            expected: "an x register".into(),
            found: text.to_string(),
        }),
    }
}

/// Evaluates a constant operand and checks its range.
fn constant(text: &str, operand: usize, min: i128, max: i128) -> Result<i128, AsmErrorKind> {
    let value = match eval(text) {
        Ok(v) => v,
        Err(ExprError::Symbolic) => {
            return Err(AsmErrorKind::NotConstant {
                operand,
                expr: text.to_string(),
            })
        }
        Err(ExprError::Syntax(message)) | Err(ExprError::Arithmetic(message)) => {
            return Err(AsmErrorKind::BadExpression {
                operand,
                expr: text.to_string(),
                message,
            })
        }
    };
    if value < min || value > max {
        return Err(AsmErrorKind::ImmediateOutOfRange {
            operand,
            value,
            min,
            max,
        });
    }
    Ok(value)
}

/// A register in a worker slot; returns the index and whether it is a vector register.
fn parse_slot(text: &str, operand: usize, slot: Slot) -> Result<(u64, bool), AsmErrorKind> {
    let reg = parse_vreg(text, operand)?;
    match (slot, reg) {
        (Slot::Either(_), Some((Class::Vector, i))) => Ok((i, true)),
        (Slot::Either(_), Some((Class::Shared, i))) => Ok((i, false)),
        (Slot::Only(class), Some((c, i))) if c == class => Ok((i, class == Class::Vector)),
        (Slot::Either(_), _) => Err(AsmErrorKind::WrongOperandKind {
            operand,
            expected: format!(
                "a vector data or shared register ({}, {})",
                Class::Vector.range(),
                Class::Shared.range()
            ),
            found: text.to_string(),
        }),
        (Slot::Only(class), _) => Err(AsmErrorKind::WrongOperandKind {
            operand,
            expected: class.describe(),
            found: text.to_string(),
        }),
    }
}

/// What encoding the operands produced, besides the bits of the word.
#[derive(Default)]
struct Encoding {
    word: u64,
    /// A vcjal target GNU as must resolve.
    target: Option<String>,
    /// A vf/vft offset GNU as must relocate.
    relocated: Option<String>,
    /// (operand number, kind-flag field, is a vector register) of each vv/vs slot.
    kinds: Vec<(usize, Field, bool)>,
}

/// Encodes operand `op`, written as `texts[at]` (and the next text for a fence pair).
fn encode_operand(
    op: &Operand,
    texts: &[&str],
    at: usize,
    enc: &mut Encoding,
) -> Result<(), AsmErrorKind> {
    let index = at + 1;
    let text = texts[at];
    match *op {
        Operand::Reg(f, slot) | Operand::AmoAddress(f, slot) => {
            let reg_text = match op {
                Operand::AmoAddress(..) => amo_register(text, index)?,
                _ => text,
            };
            let (i, vector) = parse_slot(reg_text, index, slot)?;
            enc.word |= f.put(i);
            let flag = match slot {
                Slot::Either(flag) => {
                    enc.word |= flag.put(vector as u64);
                    flag
                }
                Slot::Only(_) => f,
            };
            enc.kinds.push((index, flag, vector));
        }
        Operand::XReg(f) => enc.word |= f.put(parse_xreg(text, index)?),
        Operand::Class(f, class) => enc.word |= f.put(parse_class(text, index, class)?),
        Operand::SplitShared(hi, lo) => {
            let r = parse_class(text, index, Class::Shared)?;
            enc.word |= hi.put(r >> lo.width()) | lo.put(r);
        }
        Operand::Imm {
            field, min, max, ..
        } => enc.word |= field.put(constant(text, index, min, max)? as u64),
        Operand::ConfigLow(f) => enc.word |= f.put(constant(text, index, 0, 0xfff)? as u64),
        Operand::SegmentCount(f) => enc.word |= f.put(constant(text, index, 1, 8)? as u64 - 1),
        Operand::JumpOffset(f) => enc.word |= f.put(jump_offset(text, index, f)?),
        Operand::Condition(f) => enc.word |= f.put(constant(text, index, 0, 1)? as u64),
        Operand::JumpUnits(f) => {
            let span = 1i128 << (f.width() - 1);
            enc.word |= f.put(constant(text, index, -span, span - 1)? as u64);
        }
        Operand::Target(f) => match eval(text) {
            Err(ExprError::Symbolic) => enc.target = Some(text.to_string()),
            _ => enc.word |= f.put(jump_offset(text, index, f)?),
        },
        Operand::RoundingMode(f) => {
            let lower = text.to_ascii_lowercase();
            let value = RM_NAMES
                .iter()
                .find(|(n, _)| *n == lower)
                .map(|&(_, v)| v)
                .ok_or_else(|| AsmErrorKind::WrongOperandKind {
                    operand: index,
                    expected: "a rounding mode (rne, rtz, rdn, rup, rmm, dyn)".into(),
                    found: text.to_string(),
                })?;
            enc.word |= f.put(value);
        }
        Operand::Fence(p, s) => {
            enc.word |= p.put(constant(text, index, 0, 15)? as u64);
            enc.word |= s.put(constant(texts[at + 1], index + 1, 0, 15)? as u64);
        }
        Operand::Address { hi, lo, base } => {
            let (offset, reg) = text
                .strip_suffix(')')
                .and_then(|t| t.rsplit_once('('))
                .ok_or_else(|| AsmErrorKind::WrongOperandKind {
                    operand: index,
                    expected: "an address `offset(reg)` or a label".into(),
                    found: text.to_string(),
                })?;
            enc.word |= base.put(parse_xreg(reg.trim(), index)?);
            let offset = match offset.trim() {
                "" => "0",
                o => o,
            };
            match eval(offset) {
                // A label, or a GNU as relocation operator such as `%pcrel_lo(1b)`.
                Err(ExprError::Symbolic) => enc.relocated = Some(offset.to_string()),
                Err(_) if offset.starts_with('%') => enc.relocated = Some(offset.to_string()),
                _ => {
                    let v = constant(offset, index, -2048, 2047)? as u64;
                    enc.word |= hi.put(v >> lo.width()) | lo.put(v);
                }
            }
        }
    }
    Ok(())
}

/// Encodes the operands; optional groups are left at their defaults when the count is
/// the minimum.
fn encode_operands(
    instr: &Instruction,
    ops: &[Operand],
    texts: &[&str],
) -> Result<Encoding, AsmErrorKind> {
    check_count(instr, ops, texts.len())?;
    let total: usize = ops.iter().map(|o| o.arity().0).sum();
    let optional_present = texts.len() == total;
    let mut enc = Encoding {
        word: instr.bits,
        ..Encoding::default()
    };
    let mut at = 0;
    for op in ops {
        let (n, optional) = op.arity();
        if optional > 0 && !optional_present {
            match op {
                Operand::RoundingMode(f) => enc.word |= f.put(RM_DYN),
                Operand::Fence(p, s) => enc.word |= p.put(FENCE_ALL) | s.put(FENCE_ALL),
                _ => {}
            }
            continue;
        }
        encode_operand(op, texts, at, &mut enc)?;
        at += n;
    }
    Ok(enc)
}

fn assemble_worker(
    instr: &Instruction,
    mnemonic: &str,
    suffixes: &[&str],
    prefix: Option<&str>,
    texts: &[&str],
) -> Result<Assembled, AsmErrorKind> {
    let sfx = parse_suffixes(instr, mnemonic, suffixes)?;
    let ops = select_operands(instr, mnemonic, sfx.cond.is_some(), texts.len())?;
    let mut enc = encode_operands(instr, &ops, texts)?;
    if let (Some(f), Some(cond)) = (instr.field(Field::Vcond), sfx.cond) {
        enc.word |= f.put(cond);
    }
    if let Some(f) = instr.field(Field::Vaqrl) {
        enc.word |= f.put(sfx.aqrl.unwrap_or(0));
    }
    if let Some(kinds) = &sfx.kinds {
        let sources = enc
            .kinds
            .iter()
            .filter(|(_, flag, _)| matches!(flag, Field::Vs1 | Field::Vs2 | Field::Vs3));
        for (&(index, flag, vector), kind) in sources.zip(kinds) {
            if vector != (*kind == Class::Vector) {
                let letters: String = kinds
                    .iter()
                    .map(|k| if *k == Class::Vector { 'v' } else { 's' })
                    .collect();
                return Err(AsmErrorKind::WrongOperandKind {
                    operand: index,
                    expected: format!(
                        "{} for rs{} (suffix `.{letters}`)",
                        kind.describe(),
                        &flag.name()[2..]
                    ),
                    found: texts[index - 1].to_string(),
                });
            }
        }
    }
    let first_vector = enc.kinds.iter().find(|k| k.2).map(|k| k.0);
    apply_prefix(instr, prefix, first_vector, &mut enc.word)?;
    Ok(match enc.target {
        Some(target) => Assembled::WorkerJump {
            word: enc.word,
            target,
        },
        None => Assembled::Worker(enc.word),
    })
}

/// The register of an AMO address, `0(reg)` or `(reg)`.
fn amo_register(text: &str, operand: usize) -> Result<&str, AsmErrorKind> {
    let inner = text
        .strip_suffix(')')
        .and_then(|t| t.split_once('('))
        .filter(|(offset, _)| offset.trim().is_empty() || offset.trim() == "0");
    match inner {
        Some((_, reg)) => Ok(reg.trim()),
        None => Err(AsmErrorKind::WrongOperandKind {
            operand,
            expected: "an AMO address `0(reg)`".into(),
            found: text.to_string(),
        }),
    }
}

/// A constant byte offset of a consensual jump, checked and scaled to 8-byte units.
fn jump_offset(text: &str, operand: usize, field: Field) -> Result<u64, AsmErrorKind> {
    let span = 1i128 << (field.width() - 1);
    let value = constant(text, operand, -span * 8, (span - 1) * 8)?;
    if value % 8 != 0 {
        return Err(AsmErrorKind::Misaligned {
            operand,
            value,
            align: 8,
        });
    }
    Ok((value / 8) as u64)
}

fn apply_prefix(
    instr: &Instruction,
    prefix: Option<&str>,
    any_vector: Option<usize>,
    word: &mut u64,
) -> Result<(), AsmErrorKind> {
    let Some(prefix) = prefix else {
        return Ok(());
    };
    let lower = prefix.to_ascii_lowercase();
    match lower.as_str() {
        // Unpredicated: the thesis's spelling of the default.
        "all" => Ok(()),
        "s" => match any_vector {
            Some(operand) => Err(AsmErrorKind::Predication(format!(
                "`@s` marks a scalar instruction, but operand {operand} is a vector data register"
            ))),
            None => Ok(()),
        },
        _ => {
            let (negate, reg) = match lower.strip_prefix('!') {
                Some(r) => (true, r),
                None => (false, lower.as_str()),
            };
            let index = match parse_vreg(reg, 0) {
                Ok(Some((Class::Predicate, i))) => i,
                Err(AsmErrorKind::RegisterOutOfRange { range, .. }) => {
                    return Err(AsmErrorKind::Predication(format!(
                        "predicate register `{reg}` out of range ({range})"
                    )))
                }
                _ => {
                    return Err(AsmErrorKind::Predication(format!(
                        "bad prefix `@{prefix}` (expected @vpN, @!vpN, @all or @s)"
                    )))
                }
            };
            let (Some(pred), Some(n)) = (instr.field(Field::Vpred), instr.field(Field::Vn)) else {
                return Err(AsmErrorKind::Predication(format!(
                    "`{}` cannot be predicated (it always executes under a full mask)",
                    instr.name
                )));
            };
            *word |= pred.put(index) | n.put(negate as u64);
            Ok(())
        }
    }
}

fn assemble_control(instr: &Instruction, texts: &[&str]) -> Result<Assembled, AsmErrorKind> {
    // vsetcfg #vv64, #vp[, #vv32, #vv16]: immediates building the configuration.
    if instr.name == "vsetcfg" && !texts.is_empty() && parse_xreg(texts[0], 1).is_err() {
        return vsetcfg_immediate(instr, texts);
    }
    let ops = operands(instr);
    // vf label[, xN]: a pc-relative target, through a scratch register.
    if let Some(Operand::Address { base, .. }) = ops.first() {
        if texts.len() == 2 || (texts.len() == 1 && !texts[0].ends_with(')')) {
            let scratch = match texts.get(1) {
                Some(t) => parse_xreg(t, 2)?,
                None => SCRATCH as u64,
            };
            return Ok(Assembled::ControlPcrel {
                word: (instr.bits | base.put(scratch)) as u32,
                target: texts[0].to_string(),
                scratch: scratch as u8,
            });
        }
    }
    let enc = encode_operands(instr, &ops, texts)?;
    let word = enc.word as u32;
    Ok(match enc.relocated {
        Some(offset) => Assembled::ControlRelocated { word, offset },
        None => Assembled::Control(word),
    })
}

/// `vsetcfg #vv64, #vp[, #vv32, #vv16]`: the vcfg value (thesis Figure 7.2: #vv64 8:0,
/// #vp 13:9, #vv32 22:14, #vv16 31:23). vsetcfg ORs its 12-bit immediate into the
/// upper bits of rs1, so a value that fits 12 bits needs rs1 = x0 only; a wider one is
/// built in the scratch register first.
fn vsetcfg_immediate(instr: &Instruction, texts: &[&str]) -> Result<Assembled, AsmErrorKind> {
    if texts.len() != 2 && texts.len() != 4 {
        return Err(AsmErrorKind::OperandCount {
            mnemonic: instr.name.to_string(),
            expected: "2 or 4 (#vv64, #vp[, #vv32, #vv16])".into(),
            found: texts.len(),
        });
    }
    let limits = [(256, 0), (16, 9), (256, 14), (256, 23)];
    let mut value = 0u64;
    for (i, (text, (max, shift))) in texts.iter().zip(limits).enumerate() {
        value |= (constant(text, i + 1, 0, max)? as u64) << shift;
    }
    let (Some(imm), Some(rs1)) = (instr.field(Field::Imm12), instr.field(Field::Rs1)) else {
        return Err(AsmErrorKind::Syntax(
            "the encoding of `vsetcfg` lacks its imm12 or rs1 field".into(),
        ));
    };
    let low = value & 0xfff;
    if value == low {
        return Ok(Assembled::Control((instr.bits | imm.put(low)) as u32));
    }
    Ok(Assembled::ControlWide {
        word: (instr.bits | imm.put(low) | rs1.put(SCRATCH as u64)) as u32,
        upper: value & !0xfff,
        scratch: SCRATCH,
    })
}

/// Why a word cannot be disassembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DisasmError {
    #[error("{0:#x} is not a Hwacha instruction")]
    Unknown(u64),
    #[error("{word:#x} ({name}): field {field} holds {value}, which has no assembly syntax")]
    BadField {
        word: u64,
        name: String,
        field: &'static str,
        value: u64,
    },
}

/// Disassembles a worker-thread instruction into the syntax [`assemble`] accepts.
pub fn disassemble(word: u64) -> Result<String, DisasmError> {
    disassemble_in(Thread::Worker, word)
}

/// Disassembles a control-thread (RoCC) instruction.
pub fn disassemble_control(word: u32) -> Result<String, DisasmError> {
    disassemble_in(Thread::Control, word as u64)
}

fn sign_extend(value: u64, bits: u32) -> i64 {
    ((value << (64 - bits)) as i64) >> (64 - bits)
}

fn disassemble_in(thread: Thread, word: u64) -> Result<String, DisasmError> {
    let instr = table()
        .decode(thread, word)
        .ok_or(DisasmError::Unknown(word))?;
    let bad = |field: Field| DisasmError::BadField {
        word,
        name: instr.name.to_string(),
        field: field.name(),
        value: field.get(word),
    };
    if let Some(text) = vsetcfg_config(instr, word) {
        return Ok(text);
    }
    let mut mnemonic = instr.name.to_string();
    if let Some(f) = instr.field(Field::Vcond) {
        match f.get(word) {
            0 => mnemonic.push_str(".all"),
            1 => mnemonic.push_str(".any"),
            _ => return Err(bad(f)),
        }
    }
    if let Some(f) = instr.field(Field::Vaqrl) {
        mnemonic.push_str(["", ".rl", ".aq", ".aqrl"][f.get(word) as usize]);
    }
    let mut texts: Vec<String> = Vec::new();
    for op in operands(instr) {
        match op {
            Operand::XReg(f) => texts.push(XREG_NAMES[f.get(word) as usize].to_string()),
            Operand::Reg(f, slot) | Operand::AmoAddress(f, slot) => {
                let class = match slot {
                    Slot::Either(flag) if flag.get(word) == 1 => Class::Vector,
                    Slot::Either(_) => Class::Shared,
                    Slot::Only(c) => c,
                };
                let index = f.get(word);
                if index >= class.count() {
                    return Err(bad(f));
                }
                let reg = format!("{}{index}", class.prefix());
                texts.push(match op {
                    Operand::AmoAddress(..) => format!("0({reg})"),
                    _ => reg,
                });
            }
            Operand::Class(f, class) => {
                let index = f.get(word);
                if index >= class.count() {
                    return Err(bad(f));
                }
                texts.push(format!("{}{index}", class.prefix()));
            }
            Operand::SplitShared(hi, lo) => {
                let index = hi.get(word) << lo.width() | lo.get(word);
                if index >= Class::Shared.count() {
                    return Err(bad(hi));
                }
                texts.push(format!("vs{index}"));
            }
            Operand::Imm { field, style, .. } => {
                let raw = field.get(word);
                texts.push(match style {
                    Style::Hex => format!("{raw:#x}"),
                    Style::Decimal if field.width() == 32 => sign_extend(raw, 32).to_string(),
                    Style::Decimal => raw.to_string(),
                });
            }
            Operand::SegmentCount(f) => texts.push((f.get(word) + 1).to_string()),
            Operand::Target(f) | Operand::JumpOffset(f) => {
                texts.push((sign_extend(f.get(word), f.width()) * 8).to_string())
            }
            // Only in the upstream operand lists, which the disassembler does not print.
            Operand::Condition(f) => texts.push(f.get(word).to_string()),
            Operand::JumpUnits(f) => texts.push(sign_extend(f.get(word), f.width()).to_string()),
            Operand::Address { hi, lo, base } => {
                let offset = sign_extend(hi.get(word) << lo.width() | lo.get(word), 12);
                texts.push(format!("{offset}({})", XREG_NAMES[base.get(word) as usize]));
            }
            Operand::RoundingMode(f) => match f.get(word) {
                RM_DYN => {}
                v => match RM_NAMES.iter().find(|(_, x)| *x == v) {
                    Some((name, _)) => texts.push(name.to_string()),
                    None => return Err(bad(f)),
                },
            },
            Operand::ConfigLow(f) => match f.get(word) {
                0 => {}
                v => texts.push(format!("{v:#x}")),
            },
            Operand::Fence(p, s) => {
                if (p.get(word), s.get(word)) != (FENCE_ALL, FENCE_ALL) {
                    texts.push(p.get(word).to_string());
                    texts.push(s.get(word).to_string());
                }
            }
        }
    }
    let mut out = String::new();
    if let (Some(pred), Some(n)) = (instr.field(Field::Vpred), instr.field(Field::Vn)) {
        let (p, negate) = (pred.get(word), n.get(word) == 1);
        if negate {
            out.push_str(&format!("@!vp{p} "));
        } else if p != 0 {
            out.push_str(&format!("@vp{p} "));
        }
    }
    out.push_str(&mnemonic);
    if !texts.is_empty() {
        out.push(' ');
        out.push_str(&texts.join(", "));
    }
    Ok(out)
}

/// `vsetcfg #vv64, #vp` for a vsetcfg with rs1 = x0 whose immediate reads as a
/// configuration (what the immediate form assembles to).
fn vsetcfg_config(instr: &Instruction, word: u64) -> Option<String> {
    if instr.name != "vsetcfg" {
        return None;
    }
    let (rs1, imm) = (instr.field(Field::Rs1)?, instr.field(Field::Imm12)?);
    let v = imm.get(word);
    (rs1.get(word) == 0 && v & 0x1ff <= 256).then(|| format!("vsetcfg {}, {}", v & 0x1ff, v >> 9))
}
