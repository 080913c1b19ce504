//! The memory side of a bench around the FG-SIMT D$ (`generators::fgsimt::l1::dcache`):
//! the memory model on the D$'s ports (a port a line wide a bank, `b<i>_mem`, and the 4-byte
//! tagged uncached port `io_mem` with AMOs), at a run's latency, jitter and stalls; and
//! the comparison of a cache's memory with a reference (the L2's bench uses it too).
#![allow(dead_code)]

use generators::fgsimt::params::DcacheParams;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel, SparseMemory};

/// Memory timing of a run, and how often the bench's own requesters hold back.
#[derive(Clone, Copy, Debug)]
pub struct Stress {
    pub latency: u32,
    pub jitter: u32,
    pub stall_percent: u32,
    /// Percent of cycles a requester withholds its next request.
    pub gap_percent: u64,
}

/// The memory model serving the D$ of `p`.
pub fn memory(p: &DcacheParams, s: Stress, seed: u64) -> MemoryModel {
    let ports: Vec<MemPort> = (0..p.banks)
        .map(|b| MemPort {
            resp_ready: None,
            ..MemPort::decoupled(&format!("b{b}_mem"), false)
        })
        .chain(std::iter::once(MemPort {
            resp_ready: None,
            ..MemPort::decoupled_with_amo("io_mem", true)
        }))
        .collect();
    let config = MemConfig {
        data_bytes: p.line_bytes,
        latency: s.latency,
        jitter: s.jitter,
        out_of_order: false,
        stall_percent: s.stall_percent,
        max_outstanding: 4,
        seed,
        ..MemConfig::default()
    };
    let mut mem = MemoryModel::new(config, ports).unwrap();
    mem.set_port_bytes(p.banks as usize, 4).unwrap();
    mem
}

/// Panics naming the first byte of `[base, base + len)` where `got` and `want` differ.
pub fn compare(got: &SparseMemory, want: &SparseMemory, base: u64, len: u64) {
    let mut g = vec![0u8; len as usize];
    let mut w = g.clone();
    got.read(base, &mut g);
    want.read(base, &mut w);
    if let Some(i) = (0..g.len()).find(|&i| g[i] != w[i]) {
        panic!(
            "memory differs first at {:#x}: {:#x} != {:#x}",
            base + i as u64,
            g[i],
            w[i]
        );
    }
}
