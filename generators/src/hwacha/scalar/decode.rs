//! Worker-instruction decode and the legality rules of thesis 7.2, generated from the
//! encoding file itself: every base line of `opcodes-hwacha-ut` becomes one comparator
//! (`word & mask == bits`), and each control signal is the OR of the comparators of the
//! lines that have it. The lines' operand fields and names say what the golden model's
//! `Insn::check` needs (which register slots exist, the element width each slot needs,
//! which slot a segment access counts in), so decode and legality cannot drift from the
//! table the assembler and the model use.

use crate::rocket::decode::alu_fn;
use hdl::{Bits, Value};

/// The worker-thread encoding file (shared with the assembler and the golden model).
pub const WORKER: &str =
    include_str!("../../../../verification/src/hwacha/opcodes/opcodes-hwacha-ut");

/// One encoding line: its name, fixed bits and operand field names.
pub struct Line {
    pub name: &'static str,
    pub mask: u64,
    pub bits: u64,
    pub fields: Vec<&'static str>,
}

impl Line {
    pub fn has(&self, field: &str) -> bool {
        self.fields.contains(&field)
    }
}

fn number(text: &str) -> u64 {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .unwrap_or_else(|_| panic!("bad number `{text}` in an encoding file"))
}

/// The base (non-pseudo) lines of an encoding file in the riscv-opcodes format. The
/// verification crate checks the files themselves; here a malformed line is a bug.
pub fn parse(text: &'static str) -> Vec<Line> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('@'))
        .map(|l| {
            let mut tokens = l.split_whitespace();
            let name = tokens.next().expect("a name");
            let (mut mask, mut bits, mut fields) = (0u64, 0u64, Vec::new());
            for t in tokens {
                let Some((range, value)) = t.split_once('=') else {
                    fields.push(t);
                    continue;
                };
                let (hi, lo) = match range.split_once("..") {
                    Some((hi, lo)) => (number(hi), number(lo)),
                    None => (number(range), number(range)),
                };
                let m = (u64::MAX >> (63 - hi)) & !((1u64 << lo) - 1);
                mask |= m;
                bits |= (number(value) << lo) & m;
            }
            Line {
                name,
                mask,
                bits,
                fields,
            }
        })
        .collect()
}

/// Element widths a vector data register slot can need.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Precision {
    P64,
    P32,
    P16,
}

fn precision_of(bits: u32) -> Precision {
    match bits {
        64 => Precision::P64,
        32 => Precision::P32,
        _ => Precision::P16,
    }
}

/// Bits of an FP name's format letter (`d s h`, integer `l lu w wu`).
fn fp_bits(fmt: &str) -> u32 {
    match fmt {
        "d" | "l" | "lu" => 64,
        "s" | "w" | "wu" => 32,
        _ => 16,
    }
}

/// What the scalar unit needs to know of one line beyond its fields.
#[derive(Clone, Copy, Default)]
struct Info {
    /// Scalar ALU operation (register-register or immediate), with its ALU function.
    alu: Option<u64>,
    word: bool,
    /// The second ALU operand is the shift amount (`vslli`...) or the immediate.
    shamt: bool,
    imm: bool,
    lui: bool,
    auipc: bool,
    muldiv: bool,
    /// Integer register-register operation (`Op::Int`), ALU or multiply/divide.
    int: bool,
    fp: bool,
    first: bool,
    amo: bool,
    stop: bool,
    fence: bool,
    cjal: bool,
    cjalr: bool,
    /// Scalar load or store (`Mode::Shared` or `Mode::Address`).
    smem: bool,
    load: bool,
    store: bool,
    /// `Mode::Address`: the address is va[as1] rather than vs[ss1].
    amode: bool,
    unsigned: bool,
    /// log2 of the access bytes.
    size: u64,
    /// Element width each of rd, rs1, rs2, rs3 needs of a vector data register.
    precision: [Option<Precision>; 4],
    /// Index (rd 0, rs2 2) of the slot whose register count is the segment count.
    segment_slot: Option<usize>,
}

const SLOTS: [&str; 4] = ["vrd", "vrs1", "vrs2", "vrs3"];

fn info(line: &Line) -> Info {
    let name = line.name;
    let mut i = Info::default();
    let int_alu = |n: &str| {
        Some(match n {
            "add" | "addu" => (alu_fn::ADD, false),
            "sub" => (alu_fn::SUB, false),
            "sll" => (alu_fn::SLL, false),
            "slt" => (alu_fn::SLT, false),
            "sltu" => (alu_fn::SLTU, false),
            "xor" => (alu_fn::XOR, false),
            "srl" => (alu_fn::SRL, false),
            "sra" => (alu_fn::SRA, false),
            "or" => (alu_fn::OR, false),
            "and" => (alu_fn::AND, false),
            "addw" => (alu_fn::ADD, true),
            "subw" => (alu_fn::SUB, true),
            "sllw" => (alu_fn::SLL, true),
            "srlw" => (alu_fn::SRL, true),
            "sraw" => (alu_fn::SRA, true),
            _ => return None,
        })
    };
    let body = &name[1..];
    let muldiv = [
        "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu", "mulw", "divw", "divuw",
        "remw", "remuw",
    ];
    if let Some((f, w)) = int_alu(body) {
        (i.alu, i.word, i.int) = (Some(f), w, true);
    } else if muldiv.contains(&body) {
        (i.muldiv, i.int, i.word) = (true, true, body.ends_with('w'));
    } else if line.has("vimm") || line.has("vshamt") || line.has("vshamtw") {
        // vaddi .. vsraiw, vlui, vauipc: the register-register name with an `i`.
        match body {
            "lui" => i.lui = true,
            "auipc" => i.auipc = true,
            _ => {
                let stem = body.replacen('i', "", 1);
                let stem = stem
                    .strip_suffix('w')
                    .map_or(stem.clone(), |s| s.to_string());
                let (f, _) = int_alu(&stem).expect("an immediate ALU operation");
                (i.alu, i.word) = (Some(f), body.ends_with('w'));
                i.shamt = line.has("vshamt") || line.has("vshamtw");
                i.imm = !i.shamt;
            }
        }
    }
    i.first = name == "vfirst";
    i.stop = name == "vstop";
    i.fence = name == "vfence";
    i.cjal = name == "vcjal";
    i.cjalr = name == "vcjalr";
    i.amo = name.starts_with("vamo");
    i.fp = name.starts_with("vf") && !i.fence && !i.first || name.starts_with("vcmpf");
    let width_of = |suffix: &str| match suffix.trim_end_matches('u') {
        "d" => 3,
        "w" => 2,
        "h" => 1,
        _ => 0,
    };
    let mem = [("vl", true), ("vs", false)].iter().find_map(|&(p, load)| {
        let rest = name.strip_prefix(p)?;
        let (scalar, amode, suffix) = if let Some(s) = rest.strip_prefix("sseg") {
            (true, false, s)
        } else if let Some(s) = rest.strip_prefix("aseg") {
            (true, true, s)
        } else if let Some(s) = rest.strip_prefix("segst").or(rest.strip_prefix("segx")) {
            (false, false, s)
        } else {
            (false, false, rest.strip_prefix("seg")?)
        };
        Some((load, scalar, amode, suffix))
    });
    let mut mem_bits = 64;
    if let Some((load, scalar, amode, suffix)) = mem {
        (i.load, i.store) = (load, !load);
        i.smem = scalar;
        i.amode = amode;
        i.unsigned = suffix.ends_with('u');
        i.size = width_of(suffix);
        mem_bits = 8 << i.size;
        i.segment_slot = Some(if !load && scalar { 2 } else { 0 });
    }
    let amo_bits = if name.ends_with(".w") { 32 } else { 64 };
    // The golden model's `Insn::precision`, slot by slot.
    for (s, slot) in SLOTS.iter().enumerate() {
        if !line.has(slot) {
            continue;
        }
        let bits = if i.int && i.word {
            32
        } else if i.load || i.store {
            if *slot == "vrs2" {
                64
            } else {
                mem_bits
            }
        } else if i.amo {
            if *slot == "vrs1" {
                64
            } else {
                amo_bits
            }
        } else if i.fp {
            let fmts: Vec<&str> = name.split('.').skip(1).collect();
            let dest = s == 0;
            match fmts.as_slice() {
                [_] if name.starts_with("vfclass") && dest => 64,
                [f] => fp_bits(f),
                [to, from] => fp_bits(if dest { to } else { from }),
                _ => 64,
            }
        } else {
            64
        };
        i.precision[s] = Some(precision_of(bits));
    }
    i
}

/// The decoded control of the instruction in the X stage; 1-bit flags unless noted.
pub struct Decoded {
    /// Some base line matches (else `Illegal::Unknown`) and it is legal under the
    /// current configuration (`Insn::check`).
    pub legal: Value,
    pub alu: Value,
    /// `alu_fn` (4 bits) and the *W flag.
    pub alu_fn: Value,
    pub word: Value,
    pub shamt: Value,
    pub imm: Value,
    pub lui: Value,
    pub auipc: Value,
    pub muldiv: Value,
    pub stop: Value,
    pub fence: Value,
    pub cjal: Value,
    pub cjalr: Value,
    pub smem: Value,
    pub load: Value,
    pub amode: Value,
    pub unsigned: Value,
    /// log2 access bytes (2 bits).
    pub size: Value,
    /// Registers a segment access moves, minus one (3 bits; 0 for other instructions).
    pub seglen: Value,
    /// Field presence and register kinds: rd/rs1/rs2/rs3 name shared registers.
    pub rd_shared: Value,
    pub rs_shared: [Value; 3],
    pub has_ars1: Value,
    pub has_ars2: Value,
}

/// The current configuration as the legality rules see it (10-bit counts).
pub struct Config {
    pub vv64: Value,
    pub vv32: Value,
    pub vv16: Value,
    pub vp: Value,
}

fn any(zero: &Value, terms: impl IntoIterator<Item = Value>) -> Value {
    terms.into_iter().fold(zero.clone(), |a, t| &a | &t)
}

/// Decodes the 64-bit worker instruction `insn` under `cfg`.
pub fn decode(insn: &Value, cfg: &Config) -> Decoded {
    let lines = parse(WORKER);
    let infos: Vec<Info> = lines.iter().map(info).collect();
    let k = |v: u64, w: u32| insn.konst(Bits::from_u64(w, v));
    let zero = k(0, 1);
    let hits: Vec<Value> = lines
        .iter()
        .map(|l| (insn & &k(l.mask, 64)).eq(&k(l.bits, 64)))
        .collect();
    // OR of the comparators of the lines where `p` holds.
    let when = |p: &dyn Fn(&Line, &Info) -> bool| {
        any(
            &zero,
            lines
                .iter()
                .zip(&infos)
                .zip(&hits)
                .filter(|((l, i), _)| p(l, i))
                .map(|(_, h)| h.clone()),
        )
    };
    let has = |f: &'static str| when(&move |l: &Line, _: &Info| l.has(f));
    // A multi-bit signal from per-line constants: bit b is the OR of the lines with it.
    let encode = |width: u32, v: &dyn Fn(&Info) -> u64| {
        let bits: Vec<Value> = (0..width)
            .rev()
            .map(|b| when(&|_: &Line, i: &Info| v(i) >> b & 1 == 1))
            .collect();
        let refs: Vec<&Value> = bits.iter().collect();
        hdl::cat(&refs)
    };

    let known = when(&|_: &Line, _: &Info| true);
    let field = |hi: u32, lo: u32| insn.slice(hi, lo);
    let immediate = &has("vimm") | &has("vcimm");
    let slot_has: Vec<Value> = SLOTS.iter().map(|s| has(s)).collect();
    // d/1/2/3 flags in bits 63..60 mark vector data registers, outside immediate formats.
    let vv: Vec<Value> = (0..4)
        .map(|s| &(&slot_has[s] & &insn.bit(63 - s as u32)) & &!&immediate)
        .collect();
    let vector_source = any(&zero, (1..4).map(|s| vv[s].clone()));
    let vector = &(&insn.bit(63) & &!&immediate) | &vector_source;
    let regs = [field(23, 16), field(31, 24), field(40, 33), field(48, 41)];
    let segmented = when(&|_: &Line, i: &Info| i.segment_slot.is_some());
    let seglen = &segmented.repeat(3) & &field(47, 45);

    let first = when(&|_: &Line, i: &Info| i.first);
    let amo = when(&|_: &Line, i: &Info| i.amo);
    let cjal = when(&|_: &Line, i: &Info| i.cjal);
    let cjalr = when(&|_: &Line, i: &Info| i.cjalr);
    let int = when(&|_: &Line, i: &Info| i.int);
    let fp = when(&|_: &Line, i: &Info| i.fp);

    let mut illegal = Vec::new();
    // Consensual conditions 2 and 3 are reserved.
    illegal.push(&(&cjal | &cjalr) & &field(34, 34));
    // A shared destination with a vector source (but vfirst), or of an AMO.
    let shared_rd = &slot_has[0] & &!&vv[0];
    illegal.push(&shared_rd & &(&(&vector_source & &!&first) | &amo));
    let rm = field(52, 50);
    illegal.push(&has("vrm") & &(&rm.eq(&k(5, 3)) | &rm.eq(&k(6, 3))));
    let pred = field(15, 12);
    let negate = insn.bit(32);
    illegal.push(&(&(&int | &fp) & &!&vector) & &(&pred.ne(&k(0, 4)) | &negate));
    // Register ranges: vector data registers are numbered 64-bit, 32-bit, 16-bit, so the
    // last register of a slot (its segment's) being in range for the slot's precision
    // covers the others.
    let limit64 = cfg.vv64.clone();
    let limit32 = &limit64 + &cfg.vv32;
    let limit16 = &limit32 + &cfg.vv16;
    for s in 0..4 {
        let seg_here = encode(1, &|i: &Info| (i.segment_slot == Some(s)) as u64);
        let count = &seg_here.repeat(3) & &seglen;
        let last = &regs[s].zext(10) + &count.zext(10);
        let need = |p: Precision| when(&|_: &Line, i: &Info| i.precision[s] == Some(p));
        let limit = hdl::helpers::priority_mux(
            &[
                (need(Precision::P64), limit64.clone()),
                (need(Precision::P32), limit32.clone()),
            ],
            &limit16,
        );
        let bad_vv = &vv[s] & &!&last.lt(&limit);
        let bad_vs = &(&slot_has[s] & &!&vv[s]) & &!&last.lt(&k(64, 10));
        illegal.push(&bad_vv | &bad_vs);
    }
    let vp = &cfg.vp;
    for (f, hi, lo) in [
        ("vprd", 19, 16),
        ("vprs1", 27, 24),
        ("vprs2", 36, 33),
        ("vprs3", 44, 41),
    ] {
        illegal.push(&has(f) & &!&field(hi, lo).zext(10).lt(vp));
    }
    let unpredicated = &vp.eq(&k(0, 10)) & &pred.eq(&k(0, 4));
    illegal.push(&(&has("vpred") & &!&pred.zext(10).lt(vp)) & &!&unpredicated);
    let legal = &known & &!&any(&zero, illegal);

    Decoded {
        legal,
        // Scalar ALU and MulDiv operations only; their vector forms are issued.
        alu: &when(&|_: &Line, i: &Info| i.alu.is_some()) & &!&vector,
        alu_fn: encode(alu_fn::WIDTH, &|i: &Info| i.alu.unwrap_or(0)),
        word: when(&|_: &Line, i: &Info| i.word),
        shamt: when(&|_: &Line, i: &Info| i.shamt),
        imm: when(&|_: &Line, i: &Info| i.imm),
        lui: when(&|_: &Line, i: &Info| i.lui),
        auipc: when(&|_: &Line, i: &Info| i.auipc),
        muldiv: &when(&|_: &Line, i: &Info| i.muldiv) & &!&vector,
        stop: when(&|_: &Line, i: &Info| i.stop),
        fence: when(&|_: &Line, i: &Info| i.fence),
        cjal,
        cjalr,
        smem: when(&|_: &Line, i: &Info| i.smem),
        load: when(&|_: &Line, i: &Info| i.load),
        amode: when(&|_: &Line, i: &Info| i.amode),
        unsigned: when(&|_: &Line, i: &Info| i.unsigned),
        size: encode(2, &|i: &Info| i.size),
        seglen,
        rd_shared: shared_rd,
        rs_shared: [1, 2, 3].map(|s| &slot_has[s] & &!&vv[s]),
        has_ars1: has("vars1"),
        has_ars2: has("vars2"),
    }
}
