//! A cell's configuration registers (seed 004 section 3.5: "configuration registers in
//! each unit hold the opcode and any static parameters"; section 3.2: the BBS feeds
//! configuration tokens in from the grid's left perimeter, every row in parallel, in two
//! passes). The words are the kernel image's (`compiler/image.rs`): `cell_words` 64-bit
//! words a cell, split into two halves of `cell_words * 32` bits. Pass `p` shifts half
//! `p` of every cell of a row one cell to the right a cycle, so a row of `cols` cells
//! takes `cols` cycles a pass and the BBS feeds the rightmost cell's half first.

use crate::vgiw::compiler::image::cell_words;
use hdl::{cat, Bits, ModuleBuilder, Value};

/// The decoded fields of a cell's configuration.
pub struct CellConfig {
    /// w0 [7:0]: `image::CLASS_*`.
    pub class: Value,
    /// w0 [15:8]: the operation's variant within its class.
    pub variant: Value,
    /// w0 [18:16]: the rounding mode.
    pub rm: Value,
    /// w0 [63:32]: a load's or store's offset, an LVU's LVID.
    pub field: Value,
    /// w1 bytes 0-2: where each operand slot's token comes from (`image::SLOT_*`, a
    /// port or `LOCAL`).
    pub slots: [Value; 3],
    /// w1 byte 3: the thread values a CVU injects.
    pub thread_values: Value,
    /// w2, w3: the slots' immediates.
    pub imms: [Value; 3],
    /// w4 + c, byte d: the source of outgoing link d's channel c, at `c * 8 + d`.
    pub links: Vec<Value>,
}

impl CellConfig {
    /// Whether the class is `class`.
    pub fn is(&self, class: u8) -> Value {
        self.class
            .eq(&self.class.konst(Bits::from_u64(8, class as u64)))
    }
}

/// Bits of one pass's half of a cell's configuration.
pub fn half_bits(channels: u32) -> u32 {
    cell_words(channels) as u32 * 32
}

/// The configuration registers of a cell with `channels` channels a link: shifted from
/// `cfg_in` when `shift`, half `pass`; returns the fields and the half the cell passes
/// on to its right neighbour.
pub fn config(
    m: &mut ModuleBuilder,
    channels: u32,
    cfg_in: &Value,
    shift: &Value,
    pass: &Value,
) -> (CellConfig, Value) {
    let h = half_bits(channels);
    let halves: Vec<Value> = (0..2)
        .map(|p| {
            let en = if p == 0 { shift & &!pass } else { shift & pass };
            let r = m.reg_en(&format!("cfg{p}"), h, 0u64, &en);
            m.connect(&r, cfg_in);
            r
        })
        .collect();
    let out = pass.mux(&halves[1], &halves[0]);
    let full = cat(&[&halves[1], &halves[0]]);
    let word = |w: u32| full.slice(64 * w + 63, 64 * w);
    let (w0, w1, w2, w3) = (word(0), word(1), word(2), word(3));
    let byte = |v: &Value, b: u32| v.slice(8 * b + 7, 8 * b);
    let fields = CellConfig {
        class: byte(&w0, 0),
        variant: byte(&w0, 1),
        rm: w0.slice(18, 16),
        field: w0.slice(63, 32),
        slots: [byte(&w1, 0), byte(&w1, 1), byte(&w1, 2)],
        thread_values: byte(&w1, 3),
        imms: [w2.slice(31, 0), w2.slice(63, 32), w3.slice(31, 0)],
        links: (0..channels)
            .flat_map(|c| (0..8).map(move |d| (c, d)))
            .map(|(c, d)| byte(&word(4 + c), d))
            .collect(),
    };
    (fields, out)
}
