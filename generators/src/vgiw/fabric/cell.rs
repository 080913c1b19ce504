//! A grid cell (seed 004 section 3.5, "generic node", Figure 4): the configuration
//! registers (`config.rs`), the switch (`switch.rs`) with a two-entry token queue on
//! each outgoing link channel, and, unless the cell holds only a switch, the token
//! buffer (`token_buffer.rs`) and the unit (`units/`).
//!
//! Ports, for each neighbour direction d the cell has (N, NE, E, SE, S, SW, W, NW) and
//! channel c: `in{d}_{c}_valid`/`_bits` (the neighbour's queue head of the link toward
//! this cell, `{vc, tid, value}`) and `in{d}_{c}_pop` back; `out{d}_{c}_valid`/`_bits`
//! and `out{d}_{c}_pop` (the neighbour takes the head). `cfg_in`, `cfg_shift`,
//! `cfg_pass` and `cfg_out`: the configuration's shift chain along the row. A cell
//! module is built per unit type and set of neighbours (edges and corners have fewer).

use super::config::{config, half_bits};
use super::switch::{switch, LinkOut, Source};
use super::token::{queue_module, Layout, Token, TokenQueue, TID_BITS, VALUE_BITS};
use super::token_buffer::{token_buffer, Fire};
use crate::vgiw::compiler::Unit;
use crate::vgiw::params::VgiwParams;
use crate::vgiw::units::{self, UnitIo};
use hdl::{HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// The module name of a cell of `unit` with neighbours `dirs` (bit d: direction d).
pub fn name(unit: Option<Unit>, dirs: u8) -> String {
    let kind = unit.map_or("switch", |u| u.name());
    format!("VgiwCell_{kind}_{dirs:02x}")
}

/// Wires for the entry the token buffer fires, driven once it is built.
fn fire_wires(m: &mut ModuleBuilder, l: Layout) -> Fire {
    Fire {
        valid: m.wire("fire_valid", 1),
        vc: m.wire("fire_vc", l.vc_bits),
        tid: m.wire("fire_tid", TID_BITS),
        operands: (0..3)
            .map(|s| m.wire(&format!("fire_op{s}"), VALUE_BITS))
            .collect(),
    }
}

pub fn cell(p: &VgiwParams, unit: Option<Unit>, dirs: u8) -> Result<Rc<Module>, HdlErrors> {
    let l = p.layout();
    let channels = p.switch_channels;
    let mut m = ModuleBuilder::new(&name(unit, dirs));
    let h = half_bits(channels);
    let cfg_in = m.input("cfg_in", h);
    let shift = m.input("cfg_shift", 1);
    let pass = m.input("cfg_pass", 1);
    let cfg_out = m.output("cfg_out", h);
    let (cfg, out) = config(&mut m, channels, &cfg_in, &shift, &pass);
    m.connect(&cfg_out, &out);

    let present: Vec<u32> = (0..8).filter(|d| dirs >> d & 1 != 0).collect();
    let mut sources = Vec::new();
    let mut in_pops = Vec::new();
    let lq = queue_module(l, 2)?;
    let mut links = Vec::new();
    for &d in &present {
        for c in 0..channels {
            let valid = m.input(&format!("in{d}_{c}_valid"), 1);
            let bits = m.input(&format!("in{d}_{c}_bits"), l.bits());
            sources.push(Source {
                code: (d * 8 + c) as u8,
                token: Token::unpack(&valid, &bits, l),
            });
            in_pops.push(m.output(&format!("in{d}_{c}_pop"), 1));
            let q = TokenQueue::new(&mut m, &format!("link{d}_{c}"), &lq, l);
            let ov = m.output(&format!("out{d}_{c}_valid"), 1);
            let ob = m.output(&format!("out{d}_{c}_bits"), l.bits());
            m.connect(&ov, &q.head.valid);
            m.connect(&ob, &q.head.bits());
            let pop = m.input(&format!("out{d}_{c}_pop"), 1);
            q.pop(&mut m, &pop);
            links.push((q, cfg.links[(c * 8 + d) as usize].clone()));
        }
    }

    let built = match unit {
        Some(u) => {
            let fire = fire_wires(&mut m, l);
            let io = UnitIo {
                p,
                l,
                cfg: &cfg,
                fire: &fire,
            };
            let out = units::build(&mut m, u, &io)?;
            Some((fire, out))
        }
        None => None,
    };
    let locals = built.as_ref().map_or(&[][..], |(_, o)| &o.locals[..]);
    let inputs = sources.len();
    sources.extend(locals.iter().map(|x| Source {
        code: x.code,
        token: x.queue.head.clone(),
    }));
    let outs: Vec<LinkOut> = (links.iter())
        .map(|(q, select)| LinkOut {
            select: select.clone(),
            ready: q.ready.clone(),
        })
        .collect();
    let slots = if unit.is_some() { &cfg.slots[..] } else { &[] };
    let sw = switch(l, &sources, &outs, slots);
    for (pop, out) in sw.pops[..inputs].iter().zip(&in_pops) {
        m.connect(out, pop);
    }
    for (pop, local) in sw.pops[inputs..].iter().zip(locals) {
        local.queue.pop(&mut m, pop);
    }
    for ((q, _), t) in links.iter().zip(&sw.links) {
        q.push(&mut m, t);
    }
    if let Some((wires, out)) = &built {
        let fire = token_buffer(&mut m, l, p.vcs, &cfg, &sw.slots, &out.can_fire);
        m.connect(&wires.valid, &fire.valid);
        m.connect(&wires.vc, &fire.vc);
        m.connect(&wires.tid, &fire.tid);
        for (w, v) in wires.operands.iter().zip(&fire.operands) {
            m.connect(w, v);
        }
    }
    m.finish()
}
