//! A unit's token buffer (seed 004 section 3.5: "each token-buffer entry holds up to
//! three operands and a ready flag; the entry index is the virtual execution channel
//! ID"): per operand slot an array of `vcs` {tid, value} words and a valid bit per entry.
//! A slot is a token slot when its configuration names a source (not `SLOT_NONE` or
//! `SLOT_IMM`); an entry is ready when every token slot holds its token, and the lowest
//! ready entry fires when the unit can take it (`can_fire`), which clears it. An
//! immediate slot's operand is its configured immediate.
//!
//! A virtual channel belongs to one thread from its injection by the CVU to its
//! completion (`units/cvu.rs`), and every node of a block fires once per thread before
//! the thread completes, so an arriving token's entry slot is always free: the buffer
//! accepts every token. The arrays are written only where the valid bit is then set, so
//! they need no reset.

use super::config::CellConfig;
use super::token::{Layout, Token, TID_BITS, VALUE_BITS};
use crate::vgiw::compiler::image::{SLOT_IMM, SLOT_NONE};
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode};
use hdl::{cat, Bits, MemStyle, ModuleBuilder, Value};

/// The entry firing this cycle: `valid`, its virtual channel, thread and operands.
pub struct Fire {
    pub valid: Value,
    pub vc: Value,
    pub tid: Value,
    pub operands: Vec<Value>,
}

/// Whether a slot's configuration names a token source.
pub fn token_slot(slot: &Value) -> Value {
    let k = |v: u8| slot.konst(Bits::from_u64(8, v as u64));
    &slot.ne(&k(SLOT_NONE)) & &slot.ne(&k(SLOT_IMM))
}

pub fn token_buffer(
    m: &mut ModuleBuilder,
    l: Layout,
    vcs: u32,
    cfg: &CellConfig,
    slots: &[Token],
    can_fire: &Value,
) -> Fire {
    let need: Vec<Value> = cfg.slots.iter().map(token_slot).collect();
    let any_need = &(&need[0] | &need[1]) | &need[2];
    let mut ready = any_need.repeat(vcs);
    let valid_regs: Vec<Value> = (0..3)
        .map(|s| m.reg(&format!("tb_valid{s}"), vcs, 0u64))
        .collect();
    for (v, n) in valid_regs.iter().zip(&need) {
        ready = &ready & &(v | &(!n).repeat(vcs));
    }
    let pick = lowest_one(&ready);
    let valid = &ready.or_r() & can_fire;
    let vc = onehot_encode(&pick).trunc(l.vc_bits);
    let cleared = &pick & &valid.repeat(vcs);
    let mut words = Vec::new();
    for (s, (t, v)) in slots.iter().zip(&valid_regs).enumerate() {
        let mem = m.mem(
            &format!("tb_slot{s}"),
            vcs as u64,
            TID_BITS + VALUE_BITS,
            MemStyle::Inferred,
        );
        m.when(&t.valid, |m| {
            m.write(&mem, &t.vc, &cat(&[&t.tid, &t.value]))
        });
        let set = &onehot_decode(&t.vc, vcs) & &t.valid.repeat(vcs);
        m.connect(v, &(&(v & &!&cleared) | &set));
        words.push(m.read(&mem, &vc));
    }
    let operands = (0..3)
        .map(|s| need[s].mux(&words[s].slice(VALUE_BITS - 1, 0), &cfg.imms[s]))
        .collect();
    let tid_of = |s: usize| words[s].slice(TID_BITS + VALUE_BITS - 1, VALUE_BITS);
    let tid = need[0].mux(&tid_of(0), &need[1].mux(&tid_of(1), &tid_of(2)));
    Fire {
        valid,
        vc,
        tid,
        operands,
    }
}
