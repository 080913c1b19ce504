//! A cell's statically configured switch (seed 004 section 3.5: "a statically
//! reconfigurable switch connecting the unit to eight neighbouring units"). Its sources
//! are the channels arriving from the neighbours (code `dir * 8 + channel`, the
//! direction the token comes from) and the cell's unit's outputs (`LOCAL | k`); its
//! destinations are the outgoing link channels (configured with the code of the source
//! they forward) and the token buffer's three operand slots (configured with the code of
//! the source they take). A source's token leaves it only when every destination that
//! takes it can accept it in the same cycle (a multicast is all or nothing); the token
//! buffer always can (a thread's virtual channel is its own, `token_buffer.rs`), an
//! outgoing channel when its queue is not full.

use super::token::{Layout, Token};
use hdl::helpers::onehot_mux;
use hdl::{cat, Bits, Value};

/// A source: its code and its token.
pub struct Source {
    pub code: u8,
    pub token: Token,
}

/// An outgoing link channel: its configured source code and whether its queue has room.
pub struct LinkOut {
    pub select: Value,
    pub ready: Value,
}

/// What the switch does in a cycle.
pub struct Switched {
    /// Per source: its token leaves.
    pub pops: Vec<Value>,
    /// Per outgoing link channel: the token it enqueues.
    pub links: Vec<Token>,
    /// Per operand slot: the token it takes.
    pub slots: Vec<Token>,
}

/// The token of the source `select` names (`matches`: per source, whether it is that
/// one), valid when that source's token leaves; `packed`: the sources' packed tokens.
fn selected(l: Layout, matches: &[Value], packed: &[Value], pops: &[Value]) -> Token {
    let sel = cat(&matches.iter().rev().collect::<Vec<_>>());
    let taken = &sel & &cat(&pops.iter().rev().collect::<Vec<_>>());
    Token::unpack(&taken.or_r(), &onehot_mux(&sel, packed), l)
}

pub fn switch(l: Layout, sources: &[Source], links: &[LinkOut], slots: &[Value]) -> Switched {
    let packed: Vec<Value> = sources.iter().map(|s| s.token.bits()).collect();
    let codes = |select: &Value| -> Vec<Value> {
        (sources.iter())
            .map(|s| select.eq(&select.konst(Bits::from_u64(8, s.code as u64))))
            .collect()
    };
    let link_matches: Vec<Vec<Value>> = links.iter().map(|l| codes(&l.select)).collect();
    let pops: Vec<Value> = (sources.iter().enumerate())
        .map(|(i, s)| {
            links
                .iter()
                .zip(&link_matches)
                .fold(s.token.valid.clone(), |acc, (l, ms)| {
                    &acc & &(!&ms[i] | l.ready.clone())
                })
        })
        .collect();
    Switched {
        links: (link_matches.iter())
            .map(|ms| selected(l, ms, &packed, &pops))
            .collect(),
        slots: (slots.iter())
            .map(|sel| selected(l, &codes(sel), &packed, &pops))
            .collect(),
        pops,
    }
}
