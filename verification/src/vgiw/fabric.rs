//! The fabric's RTL as a [`BlockRunner`]: the `VgiwFabric` module of
//! `generators::vgiw::fabric` in a Verilator model, configured from the kernel image
//! (`compiler::image`, encoded and decoded, so the runs go through its words) and
//! driven the way the BBS, the L1 and the LVC will drive it: each batch's threads are
//! dealt round robin to the block's active CVUs, one a cycle each while the CVU takes
//! them; the LDSTUs' requests are performed on the data memory and the LVUs' on the
//! live values when they are answered, after a random latency (out of order), and
//! requests are refused at random cycles. Each thread's completion names its successor.
//!
//! Reconfiguration (section 3.2): when a batch is of another block than the configured
//! one, its configuration is shifted in along the rows in two passes (`cols` cycles
//! each). `cycles` and `config_cycles` count the cycles run.

use super::interp::{DataMemory, LiveValues, ThreadInit};
use super::machine::{BlockRunner, MachineError};
use crate::rng::Rng;
use crate::tb::memory::amo;
use crate::verilator::{Model, Options, PortId};
use generators::fgsimt::l1::op;
use generators::vgiw::compiler::image::{self, KernelImage, EXIT};
use generators::vgiw::compiler::{Kernel, Succ, Unit};
use generators::vgiw::fabric::config::half_bits;
use generators::vgiw::fabric::token::TID_BITS;
use generators::vgiw::fabric::unit_prefix;
use generators::vgiw::grid::Grid;
use generators::vgiw::params::VgiwParams;
use hdl::Bits;

/// Cycles a batch may take before the fabric is declared hung.
const BATCH_CYCLES: u64 = 200_000;

/// How the bench around the fabric behaves.
#[derive(Debug, Clone, Copy)]
pub struct Stimulus {
    pub seed: u64,
    /// A memory or LVC request is answered 1 to this many cycles after it is taken.
    pub max_latency: u32,
    /// Percent of cycles a request port is not ready.
    pub refuse_percent: u64,
}

impl Default for Stimulus {
    fn default() -> Self {
        Stimulus {
            seed: 1,
            max_latency: 8,
            refuse_percent: 20,
        }
    }
}

/// A CVU's ports.
struct Cvu {
    inject: [PortId; 4],
    done: [PortId; 4],
    active: PortId,
}

/// A request port and its response port.
struct Requester {
    req: Vec<PortId>,
    resp: [PortId; 3],
    pending: Vec<(u64, Vec<u64>)>,
}

pub struct FabricRunner {
    model: Model,
    grid: Grid,
    images: Vec<KernelImage>,
    cvus: Vec<Cvu>,
    ldsts: Vec<Requester>,
    lvus: Vec<Requester>,
    cfg: (PortId, PortId, Vec<PortId>),
    configured: Option<(u32, usize)>,
    rng: Rng,
    stim: Stimulus,
    pub cycles: u64,
    pub config_cycles: u64,
}

fn ids(model: &Model, prefix: &str, names: &[&str]) -> Result<Vec<PortId>, MachineError> {
    (names.iter())
        .map(|n| model.port(&format!("{prefix}{n}")))
        .collect::<Result<_, _>>()
        .map_err(|e| MachineError::Fabric(e.to_string()))
}

/// Whether every node of `k` sits on a cell of `grid` holding its unit.
fn mapped_on(k: &Kernel, grid: &Grid) -> bool {
    (k.blocks.iter()).all(|b| {
        (b.mapping.placement.iter()).all(|cells| {
            (b.nodes.iter().zip(cells)).all(|(n, &(r, c))| {
                r < grid.rows && c < grid.cols && grid.unit((r, c)) == Some(n.op.unit())
            })
        })
    })
}

fn fabric_err(e: impl std::fmt::Display) -> MachineError {
    MachineError::Fabric(e.to_string())
}

impl FabricRunner {
    /// A model of the fabric of `p` (built with `opts`, or taken from the cache),
    /// running `kernels`.
    pub fn new(
        p: &VgiwParams,
        kernels: &[Kernel],
        stim: Stimulus,
        opts: &Options,
    ) -> Result<FabricRunner, MachineError> {
        let grid = Grid::new(p);
        if let Some(k) = kernels.iter().find(|k| !mapped_on(k, &grid)) {
            let e = format!("kernel {} was not compiled for this fabric", k.name);
            return Err(fabric_err(e));
        }
        let bytes = image::encode(kernels, &grid, p.switch_channels);
        let images = image::decode(&bytes).map_err(fabric_err)?;
        let top = generators::vgiw::fabric::fabric(p).map_err(fabric_err)?;
        let design = hdl::Design::new(&top);
        let mut model = Model::of_design(&design, opts).map_err(fabric_err)?;
        model.restart(stim.seed).map_err(fabric_err)?;
        let count = |u| grid.cells_of(u).len();
        let requesters = |u: Unit, req: &str, resp: &str, fields: &[&str]| {
            (0..count(u))
                .map(|i| {
                    let pre = format!("{}{req}_", unit_prefix(u, i));
                    let mut names = vec!["valid", "ready"];
                    names.extend(fields.iter().copied());
                    let rp = ids(
                        &model,
                        &format!("{}{resp}_", unit_prefix(u, i)),
                        &["valid", "bits_data", "bits_tag"],
                    )?;
                    Ok(Requester {
                        req: ids(&model, &pre, &names)?,
                        resp: [rp[0], rp[1], rp[2]],
                        pending: Vec::new(),
                    })
                })
                .collect::<Result<Vec<_>, MachineError>>()
        };
        let ldsts = requesters(
            Unit::Ldst,
            "mem_req",
            "mem_resp",
            &[
                "bits_addr",
                "bits_op",
                "bits_data",
                "bits_mask",
                "bits_size",
                "bits_tag",
            ],
        )?;
        let lvus = requesters(
            Unit::Lvu,
            "lv_req",
            "lv_resp",
            &[
                "bits_store",
                "bits_lvid",
                "bits_tid",
                "bits_data",
                "bits_tag",
            ],
        )?;
        let cvus = (0..count(Unit::Cvu))
            .map(|i| {
                let pre = unit_prefix(Unit::Cvu, i);
                let inj = ids(
                    &model,
                    &format!("{pre}inject_"),
                    &["valid", "ready", "bits_tid", "bits_sp"],
                )?;
                let done = ids(
                    &model,
                    &format!("{pre}done_"),
                    &["valid", "ready", "bits_tid", "bits_taken"],
                )?;
                Ok(Cvu {
                    inject: [inj[0], inj[1], inj[2], inj[3]],
                    done: [done[0], done[1], done[2], done[3]],
                    active: ids(&model, &pre, &["active"])?[0],
                })
            })
            .collect::<Result<Vec<_>, MachineError>>()?;
        let rows = (0..grid.rows)
            .map(|r| format!("row{r}"))
            .collect::<Vec<_>>();
        let rows: Vec<&str> = rows.iter().map(|s| s.as_str()).collect();
        let cfg = ids(&model, "cfg_", &["shift", "pass"])?;
        let cfg = (cfg[0], cfg[1], ids(&model, "cfg_", &rows)?);
        Ok(FabricRunner {
            model,
            grid,
            images,
            cvus,
            ldsts,
            lvus,
            cfg,
            configured: None,
            rng: Rng::new(stim.seed),
            stim,
            cycles: 0,
            config_cycles: 0,
        })
    }

    fn step(&mut self) {
        self.model.step();
        self.cycles += 1;
    }

    /// Shifts block `b`'s configuration of kernel `k` (an index into the image) in.
    fn configure(&mut self, k: usize, b: usize) -> Result<(), MachineError> {
        let img = &self.images[k];
        let per = image::cell_words(img.channels as u32);
        let h = half_bits(img.channels as u32);
        let words = img.blocks[b].words.clone();
        let (cols, rows) = (self.grid.cols as usize, self.grid.rows as usize);
        self.model.poke_id_u64(self.cfg.0, 1).map_err(fabric_err)?;
        for pass in 0..2u32 {
            self.model
                .poke_id_u64(self.cfg.1, pass as u64)
                .map_err(fabric_err)?;
            for s in 0..cols {
                let c = cols - 1 - s;
                for r in 0..rows {
                    let cell = &words[(r * cols + c) * per..][..per];
                    let full = Bits::from_words(64 * per as u32, cell);
                    let half = full.slice(h * (pass + 1) - 1, h * pass);
                    self.model
                        .poke_id(self.cfg.2[r], &half)
                        .map_err(fabric_err)?;
                }
                self.step();
                self.config_cycles += 1;
            }
        }
        self.model.poke_id_u64(self.cfg.0, 0).map_err(fabric_err)?;
        Ok(())
    }
}

/// A request's fields as the bench reads them.
fn read_req(model: &mut Model, r: &Requester) -> Result<Vec<u64>, MachineError> {
    (r.req[2..].iter())
        .map(|&id| model.peek_id_u64(id).map_err(fabric_err))
        .collect()
}

/// Performs an L1 request `{addr, op, data, mask, size}` on `mem`: the aligned word's
/// value before it (loads and AMOs), 0 for stores.
fn memory(mem: &mut dyn DataMemory, f: &[u64]) -> Result<u32, MachineError> {
    let (addr, opcode, data, mask) = (f[0] as u32, f[1], f[2] as u32, f[3] as u32);
    let word = addr & !3;
    let fault = || MachineError::Fabric(format!("an LDSTU accessed {addr:#x}, outside memory"));
    match opcode {
        op::LOAD => mem.read(word, 4).ok_or_else(fault),
        op::STORE => {
            for i in (0..4).filter(|i| mask >> i & 1 != 0) {
                if !mem.write(word + i, 1, data >> (8 * i)) {
                    return Err(fault());
                }
            }
            Ok(0)
        }
        _ => {
            let old = mem.read(word, 4).ok_or_else(fault)?;
            let code = opcode - op::AMO_BASE;
            let new = amo::apply(code, 4, old as u64, data as u64).ok_or_else(fault)?;
            mem.write(word, 4, new as u32)
                .then_some(old)
                .ok_or_else(fault)
        }
    }
}

impl FabricRunner {
    /// One cycle of the request ports: answers a due request of each (`serve` performs
    /// it), takes new ones at random.
    fn ports(
        &mut self,
        lv: bool,
        serve: &mut dyn FnMut(&[u64]) -> Result<u32, MachineError>,
    ) -> Result<(), MachineError> {
        let now = self.cycles;
        let ports = if lv { &mut self.lvus } else { &mut self.ldsts };
        for r in ports.iter_mut() {
            let due = r.pending.iter().position(|(t, _)| *t <= now);
            let (valid, data, tag) = match due {
                Some(i) => {
                    let (_, f) = r.pending.remove(i);
                    let tag = *f.last().expect("a tag");
                    (1, serve(&f)? as u64, tag)
                }
                None => (0, 0, 0),
            };
            for (id, v) in r.resp.iter().zip([valid, data, tag]) {
                self.model.poke_id_u64(*id, v).map_err(fabric_err)?;
            }
            let ready = !self.rng.chance(self.stim.refuse_percent);
            self.model
                .poke_id_u64(r.req[1], ready as u64)
                .map_err(fabric_err)?;
        }
        Ok(())
    }

    /// After `eval`: records the requests taken this cycle.
    fn take_requests(&mut self, lv: bool) -> Result<(), MachineError> {
        let n = if lv {
            self.lvus.len()
        } else {
            self.ldsts.len()
        };
        for i in 0..n {
            let r = if lv { &self.lvus[i] } else { &self.ldsts[i] };
            let (valid, ready) = (r.req[0], r.req[1]);
            let fired = self.model.peek_id_u64(valid).map_err(fabric_err)? == 1
                && self.model.peek_id_u64(ready).map_err(fabric_err)? == 1;
            if fired {
                let f = read_req(&mut self.model, r)?;
                let at = self.cycles + self.rng.range(1, self.stim.max_latency + 1) as u64;
                let r = if lv {
                    &mut self.lvus[i]
                } else {
                    &mut self.ldsts[i]
                };
                r.pending.push((at, f));
            }
        }
        Ok(())
    }
}

impl FabricRunner {
    /// Drives no injection and no response (the inputs keep their values otherwise).
    fn idle(&mut self) -> Result<(), MachineError> {
        let valids = (self.cvus.iter().map(|c| c.inject[0]))
            .chain(self.ldsts.iter().chain(&self.lvus).map(|r| r.resp[0]));
        for id in valids.collect::<Vec<_>>() {
            self.model.poke_id_u64(id, 0).map_err(fabric_err)?;
        }
        Ok(())
    }
}

/// A batch's threads waiting for their CVUs: per active CVU (its index), its queue,
/// next thread last.
struct Dealt {
    active: Vec<usize>,
    queues: Vec<Vec<ThreadInit>>,
}

impl FabricRunner {
    /// Deals `threads` round robin to the CVUs the configured block uses.
    fn deal(&mut self, threads: &[ThreadInit]) -> Result<Dealt, MachineError> {
        self.model.eval();
        let mut active = Vec::new();
        for (i, c) in self.cvus.iter().enumerate() {
            if self.model.peek_id_u64(c.active).map_err(fabric_err)? == 1 {
                active.push(i);
            }
        }
        if active.is_empty() {
            return Err(fabric_err("the block configures no CVU"));
        }
        let mut queues: Vec<Vec<ThreadInit>> = vec![Vec::new(); active.len()];
        for (n, t) in threads.iter().enumerate() {
            queues[n % active.len()].push(*t);
        }
        queues.iter_mut().for_each(|q| q.reverse());
        Ok(Dealt { active, queues })
    }

    /// Offers each active CVU its next thread and takes its completions.
    fn offer(&mut self, d: &Dealt) -> Result<(), MachineError> {
        for (q, &i) in d.queues.iter().zip(&d.active) {
            let c = &self.cvus[i];
            let head = q.last();
            let values = [
                head.is_some() as u64,
                head.map_or(0, |t| t.tid as u64),
                head.map_or(0, |t| t.sp as u64),
            ];
            for (id, v) in [c.inject[0], c.inject[2], c.inject[3]].iter().zip(values) {
                self.model.poke_id_u64(*id, v).map_err(fabric_err)?;
            }
            self.model.poke_id_u64(c.done[1], 1).map_err(fabric_err)?;
        }
        Ok(())
    }

    /// After `eval`: the threads the CVUs took, and their completions (CVU, thread ID,
    /// branch taken) this cycle.
    fn completions(&mut self, d: &mut Dealt) -> Result<Vec<(usize, u32, bool)>, MachineError> {
        let mut done = Vec::new();
        for (q, &i) in d.queues.iter_mut().zip(&d.active) {
            let c = &self.cvus[i];
            let peek = |m: &mut Model, id| m.peek_id_u64(id).map_err(fabric_err);
            if !q.is_empty() && peek(&mut self.model, c.inject[1])? == 1 {
                q.pop();
            }
            if peek(&mut self.model, c.done[0])? == 1 {
                let tid = peek(&mut self.model, c.done[2])? as u32;
                done.push((i, tid, peek(&mut self.model, c.done[3])? == 1));
            }
        }
        Ok(done)
    }
}

/// The token's thread ID bits.
const TID_MASK: u32 = (1 << TID_BITS) - 1;

/// The thread of `threads` (a batch: 64 consecutive IDs at most) whose ID's low bits a
/// token carries.
fn full_tid(threads: &[ThreadInit], low: u32) -> Result<u32, MachineError> {
    (threads.iter())
        .find(|t| t.tid & TID_MASK == low)
        .map(|t| t.tid)
        .ok_or_else(|| fabric_err(format!("an LVU accessed thread {low}'s value, not running")))
}

impl BlockRunner for FabricRunner {
    fn run_batch(
        &mut self,
        kernel: &Kernel,
        block: usize,
        threads: &[ThreadInit],
        mem: &mut dyn DataMemory,
        lvs: &mut dyn LiveValues,
    ) -> Result<Vec<Succ>, MachineError> {
        let k = (self.images.iter())
            .position(|i| i.entry == kernel.entry)
            .ok_or_else(|| fabric_err(format!("kernel {} is not in the image", kernel.name)))?;
        if self.configured != Some((kernel.entry, block)) {
            self.configure(k, block)?;
            self.configured = Some((kernel.entry, block));
        }
        let b = &self.images[k].blocks[block];
        let succ = |s: u16| {
            if s == EXIT {
                Succ::Exit
            } else {
                Succ::Block(s)
            }
        };
        let (taken, fall) = (succ(b.taken), succ(b.fall));
        let id = b.id;
        let t0 = threads[0];
        for (name, v) in [("gp", t0.gp), ("tp", t0.tp)] {
            self.model.poke_u64(name, v as u64).map_err(fabric_err)?;
        }
        let mut dealt = self.deal(threads)?;
        let mut out: Vec<Option<Succ>> = vec![None; threads.len()];
        let mut left = threads.len();
        let start = self.cycles;
        while left > 0 {
            if self.cycles - start > BATCH_CYCLES {
                let n = threads.len();
                let e = format!(
                    "block {id}: {left} of {n} threads not done after {BATCH_CYCLES} cycles"
                );
                return Err(fabric_err(e));
            }
            self.offer(&dealt)?;
            self.ports(false, &mut |f| memory(mem, f))?;
            self.ports(true, &mut |f| {
                let (store, lvid, data) = (f[0] == 1, f[1] as u16, f[3] as u32);
                let tid = full_tid(threads, f[2] as u32)?;
                if store {
                    lvs.store(lvid, tid, data);
                    Ok(0)
                } else {
                    Ok(lvs.load(lvid, tid))
                }
            })?;
            self.model.eval();
            for (i, tid, took) in self.completions(&mut dealt)? {
                let n = (threads.iter())
                    .position(|t| t.tid & TID_MASK == tid)
                    .filter(|&n| out[n].is_none())
                    .ok_or_else(|| {
                        fabric_err(format!(
                            "block {id}: CVU {i} completed thread {tid}, not running"
                        ))
                    })?;
                out[n] = Some(if took { taken } else { fall });
                left -= 1;
            }
            self.take_requests(false)?;
            self.take_requests(true)?;
            self.step();
        }
        self.idle()?;
        Ok(out
            .into_iter()
            .map(|s| s.expect("every thread done"))
            .collect())
    }
}
