//! The kernel image (seed 004 section 3.1, step 7: "the runtime loads the block sequence
//! and the per-block configurations into the BBS"): per kernel its blocks in ID order,
//! each a header (successors, replicas) and the configuration words of every grid cell,
//! row-major, which the reconfiguration shifts into the cells from the left edge. Every
//! field is naturally aligned and every block starts at a multiple of 8 bytes, so that
//! the configurator (`vgiw/configurator.rs`) reads a kernel's blocks from an image
//! loaded at an 8-byte boundary with 64-bit reads, block b at `blocks_at + b *
//! configurator::block_bytes`. All little-endian:
//!
//! ```text
//! image:  "VGIWIMG2" | u32 kernels | u32 0 | kernel...
//! kernel: u32 entry | u32 name bytes | name, zero-padded to 8 | u16 rows | u16 cols
//!         | u16 channels | u16 blocks | u32 live values | u32 0 | block...
//! block:  u16 id | u16 replicas | u16 taken | u16 fall (a block ID, 0xffff: exit; both
//!         the one successor of an unconditional block) | cell words...
//! cell:   4 + channels u64 words:
//!   w0  [7:0] operation class (CLASS_*), [15:8] its variant (a compute operation's
//!       index in `CompOp`'s order, a condition, width or AMO operation), [18:16] the
//!       rounding mode, [63:32] a load's or store's offset (i32) or an LV unit's LVID
//!   w1  operand slots 0-2 in bytes 0-2: SLOT_NONE, SLOT_IMM, or the input port
//!       dir * 8 + channel the token arrives on (dir: the neighbour it comes from), or
//!       LOCAL (from the cell's own unit); data operands in order, then the ordering
//!       inputs (one; a join's up to three). A CVU: its completion's slots; byte 3:
//!       the thread values it injects (bit k: ThreadValue k).
//!   w2  immediates of slots 0 and 1 ([31:0], [63:32]); w3 [31:0] slot 2's
//!   w4+ the switch: per outgoing link (dir d, channel c: byte d of word 4 + c) its
//!       source: PORT_NONE, LOCAL | k (the cell's unit's output k: 0, or a CVU's thread
//!       value k), or the input port dir * 8 + channel it forwards.
//! ```

use super::decode::{CompOp, Rm};
use super::graph::{Arg, Kernel, Next, Op, Succ, ThreadValue};
use super::route::step;
use crate::vgiw::grid::{Cell, Grid};

pub const MAGIC: &[u8; 8] = b"VGIWIMG2";
pub const SLOT_NONE: u8 = 0xff;
pub const SLOT_IMM: u8 = 0xfe;
pub const PORT_NONE: u8 = 0xff;
pub const LOCAL: u8 = 0x80;
pub const EXIT: u16 = 0xffff;

pub const CLASS_NONE: u8 = 0;
pub const CLASS_COMPUTE: u8 = 1;
pub const CLASS_BRANCH: u8 = 2;
pub const CLASS_LOAD: u8 = 3;
pub const CLASS_STORE: u8 = 4;
pub const CLASS_AMO: u8 = 5;
pub const CLASS_LVLOAD: u8 = 6;
pub const CLASS_LVSTORE: u8 = 7;
pub const CLASS_SPLIT: u8 = 8;
pub const CLASS_JOIN: u8 = 9;
pub const CLASS_CVU: u8 = 10;

/// Words of a cell's configuration.
pub fn cell_words(channels: u32) -> usize {
    4 + channels as usize
}

/// Word 0 of a unit's configuration.
fn op_word(op: Op) -> u64 {
    let (class, variant, rm, field) = match op {
        Op::Compute(c) => {
            let (index, rm) = variant_of(c);
            (CLASS_COMPUTE, index, rm, 0)
        }
        Op::Branch(c) => (CLASS_BRANCH, c as u8, 0, 0),
        Op::Load { width, offset } => (CLASS_LOAD, width as u8, 0, offset as u32),
        Op::Store { width, offset } => (CLASS_STORE, width as u8, 0, offset as u32),
        Op::Amo(a) => (CLASS_AMO, a as u8, 0, 0),
        Op::LvLoad(l) => (CLASS_LVLOAD, 0, 0, l as u32),
        Op::LvStore(l) => (CLASS_LVSTORE, 0, 0, l as u32),
        Op::Split => (CLASS_SPLIT, 0, 0, 0),
        Op::Join => (CLASS_JOIN, 0, 0, 0),
        Op::Thread(_) | Op::Next => (CLASS_CVU, 0, 0, 0),
    };
    class as u64 | (variant as u64) << 8 | (rm as u64) << 16 | (field as u64) << 32
}

/// A compute operation's index in `CompOp`'s declaration order and rounding mode.
pub fn variant_of(c: CompOp) -> (u8, u8) {
    use CompOp::*;
    let plain = [
        Mv, Add, Sub, Sll, Slt, Sltu, Xor, Srl, Sra, Or, And, Mul, Mulh, Mulhsu, Mulhu, Div, Divu,
        Rem, Remu,
    ];
    if let Some(k) = plain.iter().position(|p| *p == c) {
        return (k as u8, 0);
    }
    let unrounded = [FMin, FMax, FSgnj, FSgnjn, FSgnjx, FEq, FLt, FLe, FClass];
    if let Some(k) = unrounded.iter().position(|p| *p == c) {
        return (19 + k as u8, 0);
    }
    let rounded: [fn(Rm) -> CompOp; 13] = [
        FAdd, FSub, FMul, FDiv, FSqrt, FMadd, FMsub, FNmsub, FNmadd, FCvtWS, FCvtWuS, FCvtSW,
        FCvtSWu,
    ];
    for rm in 0..5 {
        if let Some(k) = rounded.iter().position(|f| f(Rm(rm)) == c) {
            return (28 + k as u8, rm);
        }
    }
    unreachable!("every CompOp is listed")
}

/// The input port on which a value routed from `from` arrives at `cell` for `net`.
fn arrival(links: &[(super::route::Link, u8)], cell: Cell) -> Option<u8> {
    (links.iter())
        .find(|(l, _)| step(*l) == cell)
        .map(|(l, ch)| {
            // The link leaves in direction d; it arrives from the opposite direction.
            let back = (l.dir as usize + 4) % 8;
            back as u8 * 8 + ch
        })
}

/// The configuration words of every cell for one block.
fn block_words(kernel: &Kernel, b: usize, grid: &Grid, channels: u32) -> Vec<u64> {
    let block = &kernel.blocks[b];
    let per = cell_words(channels);
    let mut words = vec![0u64; grid.units.len() * per];
    for w in words.chunks_mut(per) {
        w[1] = 0x00ff_ffff;
        for s in &mut w[4..] {
            *s = u64::MAX;
        }
    }
    let m = &block.mapping;
    for (r, cells) in m.placement.iter().enumerate() {
        let port = |i: usize, at: Cell| -> u8 {
            let net = (m.nets.iter()).find(|n| n.replica == r && n.node == i);
            net.and_then(|n| arrival(&n.links, at))
                .expect("a routed operand")
        };
        for (n, node) in block.nodes.iter().enumerate() {
            let at = cells[n];
            let w = &mut words[grid.index(at) * per..][..per];
            w[0] = op_word(node.op);
            if let Op::Thread(v) = node.op {
                w[1] |= 1 << (24 + v as u64);
                continue;
            }
            let mut slots: Vec<Option<Arg>> = node.args.iter().map(|a| Some(*a)).collect();
            // Data operands, then the ordering inputs (one, or a join's up to three).
            slots.extend(node.after.iter().map(|&c| Some(Arg::Node(c))));
            let mut sources = 0u64;
            for (k, slot) in slots.iter().enumerate() {
                let byte = match slot {
                    Some(Arg::Imm(v)) => {
                        let (word, shift) = [(2, 0), (2, 32), (3, 0)][k];
                        w[word] |= (*v as u64) << shift;
                        SLOT_IMM
                    }
                    Some(Arg::Node(i)) if cells[*i] == at => match block.nodes[*i].op {
                        Op::Thread(v) => LOCAL | v as u8,
                        _ => LOCAL,
                    },
                    Some(Arg::Node(i)) => port(*i, at),
                    None => SLOT_NONE,
                };
                sources |= (byte as u64) << (8 * k);
            }
            for k in slots.len()..3 {
                sources |= (SLOT_NONE as u64) << (8 * k);
            }
            w[1] = (w[1] & !0xff_ffff) | sources;
        }
        for net in m.nets.iter().filter(|x| x.replica == r) {
            let local = match block.nodes[net.node].op {
                Op::Thread(v) => LOCAL | v as u8,
                _ => LOCAL,
            };
            for &(link, ch) in &net.links {
                let source = if link.cell == net.source {
                    local
                } else {
                    arrival(&net.links, link.cell).expect("a tree")
                };
                let w = &mut words[grid.index(link.cell) * per..][..per];
                let word = &mut w[4 + ch as usize];
                let shift = 8 * link.dir as u64;
                *word = (*word & !(0xff << shift)) | (source as u64) << shift;
            }
        }
    }
    words
}

/// The thread values a CVU injects: byte 3 of its w1, bit k for `ThreadValue` k.
pub fn thread_values(w1: u64) -> Vec<ThreadValue> {
    let bits = (w1 >> 24) as u8;
    [
        ThreadValue::Tid,
        ThreadValue::Gp,
        ThreadValue::Tp,
        ThreadValue::Sp,
    ]
    .into_iter()
    .filter(|v| bits >> (*v as u8) & 1 != 0)
    .collect()
}

fn succ(s: Succ) -> u16 {
    match s {
        Succ::Block(b) => b,
        Succ::Exit => EXIT,
    }
}

/// The image of `kernels`, compiled for `grid` with `channels` channels a link.
pub fn encode(kernels: &[Kernel], grid: &Grid, channels: u32) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((kernels.len() as u32).to_le_bytes());
    out.extend(0u32.to_le_bytes());
    for k in kernels {
        out.extend(k.entry.to_le_bytes());
        out.extend((k.name.len() as u32).to_le_bytes());
        out.extend(k.name.as_bytes());
        out.resize(out.len().next_multiple_of(8), 0);
        for v in [grid.rows, grid.cols, channels as u16, k.blocks.len() as u16] {
            out.extend(v.to_le_bytes());
        }
        out.extend((k.live_values.len() as u32).to_le_bytes());
        out.extend(0u32.to_le_bytes());
        for (b, block) in k.blocks.iter().enumerate() {
            let (taken, fall) = match block.next {
                Next::Goto(s) => (succ(s), succ(s)),
                Next::Cond { taken, fall } => (succ(taken), succ(fall)),
            };
            for v in [block.id, block.replicas as u16, taken, fall] {
                out.extend(v.to_le_bytes());
            }
            for w in block_words(k, b, grid, channels) {
                out.extend(w.to_le_bytes());
            }
        }
    }
    out
}

/// A block as the image holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockImage {
    pub id: u16,
    pub replicas: u16,
    pub taken: u16,
    pub fall: u16,
    /// `cell_words(channels)` words a cell, row-major.
    pub words: Vec<u64>,
}

/// A kernel as the image holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelImage {
    pub entry: u32,
    pub name: String,
    pub rows: u16,
    pub cols: u16,
    pub channels: u16,
    pub live_values: u32,
    pub blocks: Vec<BlockImage>,
    /// The byte offset in the image of block 0's header (a multiple of 8).
    pub blocks_at: usize,
}

/// Why bytes are not a kernel image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("not a VGIW kernel image (no VGIWIMG2 magic)")]
    Magic,
    #[error("the image ends inside {0}")]
    Truncated(&'static str),
    #[error("the image has {0} bytes after its last kernel")]
    Trailing(usize),
    #[error("kernel name is not UTF-8")]
    Name,
}

/// A reader of little-endian fields.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], ImageError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or(ImageError::Truncated(what))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, ImageError> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().unwrap()))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ImageError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
}

/// Reads an image (every length checked against the bytes there are).
pub fn decode(bytes: &[u8]) -> Result<Vec<KernelImage>, ImageError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(ImageError::Magic);
    }
    let mut r = Reader { bytes, at: 8 };
    let count = r.u32("the kernel count")?;
    r.u32("the image header")?;
    let mut kernels = Vec::new();
    for _ in 0..count {
        let entry = r.u32("a kernel header")?;
        let len = r.u32("a kernel header")? as usize;
        let name = r.take(len.next_multiple_of(8), "a kernel name")?[..len].to_vec();
        let name = String::from_utf8(name).map_err(|_| ImageError::Name)?;
        let (rows, cols) = (r.u16("a kernel header")?, r.u16("a kernel header")?);
        let (channels, blocks) = (r.u16("a kernel header")?, r.u16("a kernel header")?);
        let live_values = r.u32("a kernel header")?;
        r.u32("a kernel header")?;
        let blocks_at = r.at;
        let per = cell_words(channels as u32) * rows as usize * cols as usize;
        let mut bs = Vec::new();
        for _ in 0..blocks {
            let id = r.u16("a block header")?;
            let replicas = r.u16("a block header")?;
            let (taken, fall) = (r.u16("a block header")?, r.u16("a block header")?);
            let raw = r.take(per * 8, "a block's configuration")?;
            let words = raw
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            bs.push(BlockImage {
                id,
                replicas,
                taken,
                fall,
                words,
            });
        }
        kernels.push(KernelImage {
            entry,
            name,
            rows,
            cols,
            channels,
            live_values,
            blocks: bs,
            blocks_at,
        });
    }
    match bytes.len() - r.at {
        0 => Ok(kernels),
        n => Err(ImageError::Trailing(n)),
    }
}
