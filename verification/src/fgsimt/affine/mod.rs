//! The ASRF affine mechanisms of seed 000 (section 2): compact values and their ALU
//! (`alu.rs`), and the per-warp ASRF with the classification of each warp instruction
//! (`asrf.rs`): what the CP does alone, what the lanes expand, which branches and loads
//! the mechanisms take.

pub mod alu;
pub mod asrf;
pub mod operands;

/// Which mechanisms are on (the engine's `affine` parameter: none, a, ab, abm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mechanisms {
    /// +a: affine arithmetic in the CP with lazy expansion after divergence.
    pub arith: bool,
    /// +b: branches on uniform operands resolved in the CP.
    pub branches: bool,
    /// +m: affine unit-stride loads on the wide port.
    pub loads: bool,
    /// The engine's `avc` (seed 002): each thread's stack is private memory
    /// ([`crate::fgsimt::avc::private::Stacks::violation`]).
    pub private: bool,
}

impl Mechanisms {
    /// From the parameter's spelling: "none", "a", "ab" or "abm".
    pub fn parse(s: &str) -> Option<Mechanisms> {
        let (arith, branches, loads) = match s {
            "none" => (false, false, false),
            "a" => (true, false, false),
            "ab" => (true, true, false),
            "abm" => (true, true, true),
            _ => return None,
        };
        Some(Mechanisms {
            arith,
            branches,
            loads,
            private: false,
        })
    }
}
